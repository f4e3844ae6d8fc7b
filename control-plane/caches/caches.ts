import type { ResourceInterpreterCustomization } from "../../shared/api/customization.ts";
import type { CronFederatedHPA, FederatedHPA } from "../../shared/api/autoscaling.ts";
import type { WorkloadRebalancer } from "../../shared/api/rebalancer.ts";
import type { ClusterTaintPolicy } from "../../shared/api/taint-policy.ts";
import type { FederatedResourceQuota } from "../../shared/api/quota.ts";
import type { MemberServiceExport } from "../../shared/api/mcs.ts";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { DNS_RESOURCES, type DNSEndpoint, type Domain, type IngressDNSRecord, type ServiceDNSRecord } from "../../shared/api/dns.ts";
import { CONTROLLER_REVISIONS, PRIORITY_CLASSES, RESOURCES, ROLLOUT_OF_LABEL, SECRETS } from "../../shared/api/resources.ts";
import type { Cluster, ControllerRevision, KubeObject, OverridePolicy, PropagationPolicy, ResourceBinding } from "../../shared/api/types.ts";
import { Informer } from "../../shared/informer.ts";
import { BindingIndex, policyId } from "./binding-index.ts";
import { BindingEntries } from "./binding-entries.ts";
import { BindingsAhead } from "./bindings-ahead.ts";
import type { KubeRest, ResourceInfo } from "../../shared/kube-rest.ts";
import { bindingName, bindsRef, isCurrentBinding, legacyBindingName } from "../scheduling/binding-spec.ts";
import { noExecuteAsNoSchedule } from "../scheduling/no-execute.ts";
import { templateKeyOfBinding, type WorkRef } from "../../shared/work-key.ts";

/** The informers over Flotilla's own kinds, shared by every controller of the process. */
export class Caches {
  readonly clusters: Informer<Cluster>;
  readonly policies: Informer<PropagationPolicy>;
  readonly clusterPolicies: Informer<PropagationPolicy>;
  readonly bindings: Informer<ResourceBinding>;
  readonly clusterBindings: Informer<ResourceBinding>;
  readonly overrides: Informer<OverridePolicy>;
  readonly clusterOverrides: Informer<OverridePolicy>;
  /** Multi-cluster DNS (DESIGN §12): the zones, the records, and the DNSEndpoints the records publish through. */
  readonly domains: Informer<Domain>;
  readonly serviceDNSRecords: Informer<ServiceDNSRecord>;
  readonly ingressDNSRecords: Informer<IngressDNSRecord>;
  readonly dnsEndpoints: Informer<DNSEndpoint>;
  /** ResourceInterpreterCustomizations: how the kinds they name are divided, revised and summed. */
  readonly customizations: Informer<ResourceInterpreterCustomization>;
  /** FederatedHPAs (issue 22): the autoscaler's inputs. */
  readonly federatedHpas: Informer<FederatedHPA>;
  readonly cronFederatedHpas: Informer<CronFederatedHPA>;
  /** WorkloadRebalancers (issue 22): one-off fresh reschedules that users request. */
  readonly workloadRebalancers: Informer<WorkloadRebalancer>;
  readonly clusterTaintPolicies: Informer<ClusterTaintPolicy>;
  /**
   * FederatedResourceQuotas (issue 26). Not waited for at start: their Works are removed only on
   * intent seen once this informer has listed (control-plane/quota/).
   */
  readonly federatedResourceQuotas: Informer<FederatedResourceQuota>;
  /**
   * The members' ServiceExports as their agents reported them (issue 40). Not waited for at start:
   * an import is removed only on a withdrawal seen once this informer has listed (mcs-controller/).
   */
  readonly memberServiceExports: Informer<MemberServiceExport>;
  /** Templates' rollout revisions (issue 23): only the ControllerRevisions Flotilla labels. */
  readonly controllerRevisions: Informer<ControllerRevision>;
  /** The Secrets that hold Secret templates' revisions (works/revision-secret.ts): only those Flotilla labels. */
  readonly revisionSecrets: Informer<KubeObject>;
  /** scheduling.k8s.io PriorityClasses: a policy's schedulePriority names one (issue 26). */
  readonly priorityClasses: Informer<{ metadata: { name?: string }; value?: number }>;
  /** Bindings of both scopes by cluster and by policy; up to date before any other handler of theirs runs. */
  readonly bindingIndex = new BindingIndex();
  /** Issue 25: every cluster's entry of the bindings whose status lists only some (the status controller's). */
  readonly bindingEntries = new BindingEntries();
  /** Issue 42: new bindings being written, rendered from before the informer holds them. */
  readonly bindingsAhead = new BindingsAhead();

  /** informer: how each informer is made (tests feed events through stand-ins). */
  constructor(kc: KubeConfig, rest: KubeRest, log: Logger, informer?: (resource: ResourceInfo) => Informer<unknown>) {
    const make = <T>(resource: ResourceInfo) => (informer ? (informer(resource) as Informer<T>) : new Informer<T>({ kc, rest, resource, log }));
    this.clusters = make<Cluster>(RESOURCES.cluster);
    this.policies = make<PropagationPolicy>(RESOURCES.propagationPolicy);
    this.clusterPolicies = make<PropagationPolicy>(RESOURCES.clusterPropagationPolicy);
    this.bindings = make<ResourceBinding>(RESOURCES.resourceBinding);
    this.clusterBindings = make<ResourceBinding>(RESOURCES.clusterResourceBinding);
    this.overrides = make<OverridePolicy>(RESOURCES.overridePolicy);
    this.clusterOverrides = make<OverridePolicy>(RESOURCES.clusterOverridePolicy);
    this.domains = make<Domain>(DNS_RESOURCES.domain);
    this.serviceDNSRecords = make<ServiceDNSRecord>(DNS_RESOURCES.serviceDNSRecord);
    this.ingressDNSRecords = make<IngressDNSRecord>(DNS_RESOURCES.ingressDNSRecord);
    this.dnsEndpoints = make<DNSEndpoint>(DNS_RESOURCES.dnsEndpoint);
    this.customizations = make<ResourceInterpreterCustomization>(RESOURCES.resourceInterpreterCustomization);
    this.federatedHpas = make<FederatedHPA>(RESOURCES.federatedHPA);
    this.cronFederatedHpas = make<CronFederatedHPA>(RESOURCES.cronFederatedHPA);
    this.workloadRebalancers = make<WorkloadRebalancer>(RESOURCES.workloadRebalancer);
    this.priorityClasses = make(PRIORITY_CLASSES);
    this.clusterTaintPolicies = make<ClusterTaintPolicy>(RESOURCES.clusterTaintPolicy);
    this.federatedResourceQuotas = make<FederatedResourceQuota>(RESOURCES.federatedResourceQuota);
    this.memberServiceExports = make<MemberServiceExport>(RESOURCES.memberServiceExport);
    this.controllerRevisions = informer
      ? (informer(CONTROLLER_REVISIONS) as Informer<ControllerRevision>)
      : new Informer<ControllerRevision>({ kc, rest, resource: CONTROLLER_REVISIONS, labelSelector: ROLLOUT_OF_LABEL, log });
    this.revisionSecrets = informer ? (informer(SECRETS) as Informer<KubeObject>) : new Informer<KubeObject>({ kc, rest, resource: SECRETS, labelSelector: ROLLOUT_OF_LABEL, log });
    // Registered first, so every controller's handler reads the index with the event in it.
    // Only a template's current binding is indexed: one left under a legacy name (being moved)
    // must not unfile the current one when it goes.
    const set = (b: ResourceBinding) => {
      if (!isCurrentBinding(b)) return;
      this.bindingIndex.set(b);
      this.bindingsAhead.landed(templateKeyOfBinding(b), b);
    };
    const unset = (b: ResourceBinding) => isCurrentBinding(b) && this.bindingIndex.delete(b);
    for (const inf of [this.bindings, this.clusterBindings]) inf.on({ add: set, update: set, delete: unset });
  }

  /** --enable-no-execute-taint-eviction: an untolerated NoExecute taint evicts; off, placement sees it as NoSchedule (scheduling/no-execute.ts). */
  noExecuteEviction = false;

  all(): Informer<unknown>[] {
    return [...this.propagation(), this.domains, this.serviceDNSRecords, this.ingressDNSRecords, this.dnsEndpoints, this.federatedHpas, this.cronFederatedHpas, this.workloadRebalancers, this.clusterTaintPolicies, this.federatedResourceQuotas, this.memberServiceExports] as Informer<unknown>[];
  }

  /** The caches propagation decides from: clusters, policies, bindings, overrides, interpreter customizations, priority classes. */
  private propagation(): Informer<unknown>[] {
    return [this.clusters, this.policies, this.clusterPolicies, this.bindings, this.clusterBindings, this.overrides, this.clusterOverrides, this.customizations, this.controllerRevisions, this.revisionSecrets, this.priorityClasses] as Informer<unknown>[];
  }

  /**
   * Resolves once every cache propagation decides from holds a successful list. An informer's
   * start() also resolves after a refused list (it retries with backoff); controllers started on
   * such an empty cache would take it as the truth, and the hub would offer agents a short set of
   * Works (DESIGN §11). The DNS caches are not waited for: DNS is optional (its CRDs may be absent,
   * its lists refused), and the DNS controller itself acts only once its caches have listed.
   */
  async start(): Promise<void> {
    await Promise.all(this.all().map((i) => i.start()));
    await Promise.all(this.propagation().map((i) => i.whenSynced()));
  }

  stop(): void {
    for (const i of this.all()) i.stop();
  }

  /** Every policy of both scopes. */
  allPolicies(): PropagationPolicy[] {
    return [...this.policies.list(), ...this.clusterPolicies.list()];
  }

  /**
   * Calls fn when the part of a Cluster that shapeOf picks changes (or the Cluster comes or
   * goes). Heartbeats rewrite a Cluster's status every few seconds; consumers that depend only
   * on labels, spec or readiness should not recompute on each of them. fn also gets the Cluster
   * as it was at the last call (undefined when it is new) and as it is (undefined when gone).
   */
  onClusterShapeChange(shapeOf: (c: Cluster) => string, fn: (cluster: string, before: Cluster | undefined, after: Cluster | undefined) => void): void {
    const shapes = new Map<string, { shape: string; cluster: Cluster }>();
    const seen = (c: Cluster, deleted: boolean) => {
      const name = c.metadata.name ?? "";
      const shape = deleted ? undefined : shapeOf(c);
      const before = shapes.get(name);
      if (before?.shape === shape) return;
      if (shape === undefined) shapes.delete(name);
      else shapes.set(name, { shape, cluster: c });
      fn(name, before?.cluster, deleted ? undefined : c);
    };
    this.clusters.on({ add: (c) => seen(c, false), update: (c) => seen(c, false), delete: (c) => seen(c, true) });
  }

  /** Clusters that can be placed on: an unjoining (deleted) Cluster is not. */
  placeableClusters(): Cluster[] {
    const live = this.clusters.list().filter((c) => c.metadata.deletionTimestamp === undefined);
    return this.noExecuteEviction ? live : live.map(noExecuteAsNoSchedule);
  }

  /** Every override policy of both scopes. */
  allOverrides(): OverridePolicy[] {
    return [...this.overrides.list(), ...this.clusterOverrides.list()];
  }

  /** Every template's current binding, of both scopes (not those left under a legacy name). */
  allBindings(): ResourceBinding[] {
    return [...this.bindings.list(), ...this.clusterBindings.list()].filter(isCurrentBinding);
  }

  /** Bindings under a name this version no longer gives their template (to be moved). */
  legacyBindings(): ResourceBinding[] {
    return [...this.bindings.list(), ...this.clusterBindings.list()].filter((b) => !isCurrentBinding(b));
  }

  /** Template keys of the bindings a policy placed (by the labels it left on them). */
  placedBy(p: PropagationPolicy): string[] {
    return this.bindingIndex.placedBy(policyId(p));
  }

  /**
   * The binding of a template, from the cache: the one named for its group, kind and name that
   * says it binds this object (a name alone never makes another template's binding ours), or,
   * until it is moved, the one an earlier version named `<name>-<kind>`.
   */
  bindingOf(ref: WorkRef): ResourceBinding | undefined {
    return this.currentBindingOf(ref) ?? this.legacyBindingOf(ref);
  }

  /** The binding under the name this version gives the template (bindingOf also finds one not moved yet). */
  currentBindingOf(ref: WorkRef): ResourceBinding | undefined {
    return this.bindingNamed(ref, bindingName(ref));
  }

  /** A binding earlier versions made for the template under its legacy name, not moved yet. */
  legacyBindingOf(ref: WorkRef): ResourceBinding | undefined {
    const legacy = legacyBindingName(ref);
    return legacy === bindingName(ref) ? undefined : this.bindingNamed(ref, legacy);
  }

  private bindingNamed(ref: WorkRef, name: string): ResourceBinding | undefined {
    const b = ref.namespace ? this.bindings.get(name, ref.namespace) : this.clusterBindings.get(name);
    return b !== undefined && bindsRef(b, ref) ? b : undefined;
  }
}

