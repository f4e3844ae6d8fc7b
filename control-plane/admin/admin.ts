// The Admin gRPC service (DESIGN §5) that flotillactl talks to. Every call needs an admin client
// certificate from the control plane's CA, not in the admin revocation list: an admin's
// (O=flotilla:admins) may call everything, a viewer's (O=flotilla:viewers) the reads of
// non-Secrets (admin-access.ts); an agent's certificate is refused.
// Reads come from this replica's caches and Work store, so every replica answers the same.
import type { InterpreterRegistry } from "../../shared/interpreter/registry.ts";
import { status as GrpcStatus, type UntypedServiceImplementation } from "@grpc/grpc-js";
import type { Logger } from "pino";
import type { KubeObject, ResourceBinding } from "../../shared/api/types.ts";
import type { ClusterInfo, CreateTokenRequest, DiffRequest, PlanRequest, DiffResponse, DeleteTokenRequest, ListBindingsRequest, ListBindingsResponse, UnjoinRequest, UnjoinResponse } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import type { ExplainRequest, ExplainResponse, GetPropagationRequest, GetPropagationResponse, ListClustersResponse, ListWorksRequest, ListWorksResponse, RenderRequest, RenderResponse, RolloutRequest, TemplateRef } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import type { ResourceIdentifier } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { AGENT_ON_OTHER_REPLICA } from "../../shared/admin-errors.ts";
import { revokingEntry } from "../../shared/revocation-list.ts";
import { workKey } from "../../shared/work-key.ts";
import { type AdminMethod, adminAccess, type KindRef } from "./admin-access.ts";
import { AdminRollout, rolloutMethod } from "./admin-rollout.ts";
import { AdminTokens } from "./admin-tokens.ts";
import { type CallerCert, type DashboardLink, dashboardLogin } from "./admin-dashboard.ts";
import type { RevocationFile } from "./revocation-file.ts";
import type { Caches } from "../caches/caches.ts";
import { diffPair, redactManifests } from "./live-view.ts";
import { planObjects } from "./admin-plan.ts";
import { propagationPage } from "./propagation-page.ts";
import { renderClusterWorks } from "../rendering/render-works.ts";
import { RpcError, unaryHandler } from "../rpc.ts";
import { refName, TemplateResolver } from "../kinds/template-resolver.ts";
import { CLUSTER_FINALIZER } from "../clusters/registration.ts";
import type { StatusStore } from "../status/status-store.ts";
import { FORCE_ANNOTATION } from "../clusters/unjoin-controller.ts";
import type { WorkStore } from "../works/work-store.ts";

export class Admin {
  private readonly caches: Caches;
  private readonly works: WorkStore;
  private readonly statuses: StatusStore;
  private readonly rest: KubeRest;
  private readonly connected: (cluster: string) => boolean;
  private readonly liveObjects: (cluster: string, resources: ResourceIdentifier[]) => Promise<Buffer[]> | undefined;
  private readonly tokens: AdminTokens;
  private readonly rollouts: AdminRollout;
  private readonly waitingOn: (cluster: string) => number;
  private readonly log: Logger;
  private readonly resolver: TemplateResolver;
  private readonly requireAcceptance: boolean;
  private readonly digestKey: Buffer;
  private readonly interpreters: InterpreterRegistry | undefined;
  private readonly revocations: RevocationFile;
  private readonly explain: (req: ExplainRequest) => Promise<ExplainResponse>;
  private readonly dashboardLink: DashboardLink | undefined;
  private readonly memberApiUrl: () => string;

  constructor(opts: {
    caches: Caches;
    works: WorkStore;
    statuses: StatusStore;
    rest: KubeRest;
    connected: (cluster: string) => boolean;
    /** Asks a cluster's agent for live objects; undefined when it does not stream to this replica. */
    liveObjects: (cluster: string, resources: ResourceIdentifier[]) => Promise<Buffer[]> | undefined;
    /** Where bootstrap tokens live; undefined when registration is off. */
    tokenNamespace: string | undefined;
    /** Bindings still waiting for a cluster's agent to remove its objects. */
    waitingOn: (cluster: string) => number;
    /** --require-acceptance: plan places nothing new on clusters not accepted, as the scheduler does. */
    requireAcceptance?: boolean;
    /** The fleet's Secret digest key (secret-digest.ts). */
    digestKey: Buffer;
    /** Each kind's interpreter, for plan (customizations over the native ones). */
    interpreters?: InterpreterRegistry;
    /** The admin revocation list (--admin-revocation-list). */
    revocations: RevocationFile;
    /** The Explain call: explain/'s explain over the control plane's context. */
    explain: (req: ExplainRequest) => Promise<ExplainResponse>;
    /** Mints the dashboard's login links; undefined when it serves no dashboard. */
    dashboardLink?: DashboardLink;
    /** Where callers reach the members' APIs (issue 41), or "" when this control plane serves none. */
    memberApiUrl?: () => string;
    log: Logger;
  }) {
    this.memberApiUrl = opts.memberApiUrl ?? (() => "");
    this.dashboardLink = opts.dashboardLink;
    this.explain = opts.explain;
    this.digestKey = opts.digestKey;
    this.interpreters = opts.interpreters;
    this.revocations = opts.revocations;
    this.requireAcceptance = opts.requireAcceptance ?? false;
    this.caches = opts.caches;
    this.works = opts.works;
    this.statuses = opts.statuses;
    this.rest = opts.rest;
    this.resolver = new TemplateResolver(opts.rest);
    this.connected = opts.connected;
    this.liveObjects = opts.liveObjects;
    this.tokens = new AdminTokens({ rest: opts.rest, tokenNamespace: opts.tokenNamespace, log: opts.log });
    this.rollouts = new AdminRollout({ caches: opts.caches, rest: opts.rest, resolver: this.resolver, log: opts.log });
    this.waitingOn = opts.waitingOn;
    this.log = opts.log;
  }

  /** The grpc-js implementation of Admin. */
  service(): UntypedServiceImplementation {
    return {
      listClusters: this.unary("listClusters", async () => this.listClusters()),
      getPropagation: this.unary("getPropagation", (req: GetPropagationRequest) => this.getPropagation(req)),
      render: this.unary("render", (req: RenderRequest, may) => this.render(req, may)),
      diff: this.unary("diff", (req: DiffRequest, may) => this.diff(req, may)),
      plan: this.unary("plan", (req: PlanRequest, may) =>
        planObjects({ caches: this.caches, works: this.works, rest: this.rest, resolver: this.resolver, requireAcceptance: this.requireAcceptance, digestKey: this.digestKey, mayPlan: may, ...(this.interpreters === undefined ? {} : { interpreters: this.interpreters }) }, req),
      ),
      listWorks: this.unary("listWorks", async (req: ListWorksRequest) => this.listWorks(req)),
      listBindings: this.unary("listBindings", async (req: ListBindingsRequest) => this.listBindings(req)),
      createToken: this.unary("createToken", (req: CreateTokenRequest) => this.tokens.create(req)),
      listTokens: this.unary("listTokens", () => this.tokens.list()),
      deleteToken: this.unary("deleteToken", (req: DeleteTokenRequest) => this.tokens.delete(req)),
      unjoin: this.unary("unjoin", (req: UnjoinRequest) => this.unjoin(req)),
      rollout: this.unary(rolloutMethod, (req: RolloutRequest) => this.rollouts.rollout(req)),
      explain: this.unary("explain", (req: ExplainRequest) => this.explain(req)),
      createDashboardLogin: this.unary("createDashboardLogin", async (_req: unknown, _may, caller) => dashboardLogin(this.dashboardLink, caller)),
    };
  }

  /**
   * Wraps a handler: the access check (certificate, revocation list, role), then the answer or a
   * status with a message. The handler gets `may`, which refuses (throws PERMISSION_DENIED) once it
   * knows the objects it would show a caller whose role may not see them.
   */
  private unary<Req, Res>(methodOf: AdminMethod | ((req: Req) => AdminMethod), handler: (req: Req, may: (objects: KindRef[]) => void, caller: CallerCert) => Promise<Res>) {
    return unaryHandler<Req, Res>(
      async (call) => {
        const method = typeof methodOf === "function" ? methodOf(call.request) : methodOf;
        const cert = call.getAuthContext()?.sslPeerCertificate;
        const state = await this.revocations.current();
        const revocation = "broken" in state ? { listBroken: state.broken } : { revokedBy: revokingEntry(state.list, cert ?? {}) };
        const check = (objects?: KindRef[]) => {
          const access = adminAccess({ subject: cert?.subject, method, revocation, ...(objects === undefined ? {} : { objects }) });
          if (!access.allowed) {
            this.log.info({ method, subject: cert?.subject?.CN, reason: access.reason }, "admin call refused");
            throw new RpcError(GrpcStatus.PERMISSION_DENIED, access.reason);
          }
        };
        check();
        return handler(call.request, check, cert ?? {});
      },
      (err) => this.log.warn({ err: err instanceof Error ? err.message : String(err) }, "admin call failed"),
    );
  }

  private listClusters(): ListClustersResponse {
    const clusters: ClusterInfo[] = this.caches.clusters
      .list()
      .map((c) => ({
        name: c.metadata.name ?? "",
        ready: c.status?.conditions?.find((x) => x.type === "Ready")?.status === "True",
        connected: this.connected(c.metadata.name ?? ""),
        kubernetesVersion: c.status?.kubernetesVersion ?? "",
        agentVersion: c.status?.agentVersion ?? "",
        nodeSummary: { total: c.status?.nodeSummary?.totalNum ?? 0, ready: c.status?.nodeSummary?.readyNum ?? 0 },
        resourceSummary: { allocatable: c.status?.resourceSummary?.allocatable ?? {}, allocated: c.status?.resourceSummary?.allocated ?? {} },
        lastHeartbeatTime: c.status?.lastHeartbeatTime ?? "",
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { clusters, memberApiUrl: this.memberApiUrl() };
  }

  private async getPropagation(req: GetPropagationRequest): Promise<GetPropagationResponse> {
    const ref = await this.resolver.resolve(req.template);
    const key = workKey(ref);
    const binding: ResourceBinding | undefined = this.caches.bindingOf(ref);
    if (binding === undefined) throw new RpcError(GrpcStatus.NOT_FOUND, `${ref.kind} ${refName(ref)} has no binding: no propagation policy selects it`);
    // Every cluster's detail from memory: a large binding's status lists only some (issue 25).
    const page = propagationPage({ binding, entries: this.caches.bindingEntries.of(binding), hashOf: (c) => this.works.get(c, key)?.hash, limit: req.limit, continueToken: req.continueToken });
    if (page instanceof Error) throw new RpcError(GrpcStatus.INVALID_ARGUMENT, page.message);
    return page;
  }

  /** What a cluster receives for a template (exactly its Work), or a preview when it is no target. */
  /** As rendered, with Secret values as digests (the content hash still tells exactly which Work it is). */
  private async render(req: RenderRequest, may: (objects: KindRef[]) => void): Promise<RenderResponse> {
    const r = await this.rendered(req.template, req.cluster, may);
    return { ...r, manifests: redactManifests(r.manifests, this.digestKey) };
  }

  /** The rendered objects next to the member's live ones, through the cluster's agent. */
  private async diff(req: DiffRequest, may: (objects: KindRef[]) => void): Promise<DiffResponse> {
    const r = await this.rendered(req.template, req.cluster, may);
    const objects = r.manifests.map((m) => JSON.parse(Buffer.from(m).toString("utf8")) as KubeObject);
    const resources = objects.map((o) => {
      const [group, version] = o.apiVersion.includes("/") ? (o.apiVersion.split("/") as [string, string]) : ["", o.apiVersion];
      return { group, version, kind: o.kind, namespace: o.metadata.namespace ?? "", name: o.metadata.name ?? "" };
    });
    const ask = this.liveObjects(req.cluster, resources);
    if (ask === undefined) throw new RpcError(GrpcStatus.FAILED_PRECONDITION, `the agent of ${req.cluster} ${AGENT_ON_OTHER_REPLICA}; retry (or ask the replica it streams to)`);
    const live = await ask.catch((err: unknown) => {
      throw new RpcError(GrpcStatus.UNAVAILABLE, (err as Error).message);
    });
    return {
      objects: objects.map((o, i) => {
        const bytes = live[i] ?? Buffer.alloc(0);
        const pair = diffPair(o, bytes.length === 0 ? undefined : (JSON.parse(bytes.toString("utf8")) as KubeObject), this.digestKey);
        return { rendered: Buffer.from(JSON.stringify(pair.rendered)), live: pair.live === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(pair.live)), liveExists: pair.live !== undefined };
      }),
      placed: r.placed,
      template: r.template,
    };
  }

  /** What a cluster gets for a template; `may` refuses, before anything is read, a caller who may not see its kind. */
  private async rendered(templateRef: TemplateRef | undefined, clusterName: string, may: (objects: KindRef[]) => void): Promise<RenderResponse> {
    if (clusterName === "") throw new RpcError(GrpcStatus.INVALID_ARGUMENT, "a cluster is required");
    const cluster = this.caches.clusters.get(clusterName);
    if (cluster === undefined) throw new RpcError(GrpcStatus.NOT_FOUND, `cluster ${JSON.stringify(clusterName)} is not registered`);
    const ref = await this.resolver.resolve(templateRef);
    may([ref]);
    const key = workKey(ref);
    const template: TemplateRef = { apiVersion: ref.apiVersion, kind: ref.kind, namespace: ref.namespace ?? "", name: ref.name };
    const failed = this.works.renderErrorsOf(key).get(clusterName);
    if (failed !== undefined) throw new RpcError(GrpcStatus.FAILED_PRECONDITION, `ApplyOverridesFailed: ${failed}`);
    const work = this.works.get(clusterName, key);
    if (work !== undefined) return { manifests: work.manifests, contentHash: work.hash, placed: true, template };
    const object = await this.rest.get<KubeObject>(ref.path).catch((err: unknown) => {
      if (isKubeStatus(err, 404)) throw new RpcError(GrpcStatus.NOT_FOUND, `${ref.kind} ${refName(ref)} not found in the control cluster`);
      throw err;
    });
    const rendered = renderClusterWorks(object, [{ name: clusterName }], (n) => this.caches.clusters.get(n), this.caches.allOverrides(), "Abort").get(clusterName);
    if (rendered === undefined || !rendered.ok) throw new RpcError(GrpcStatus.FAILED_PRECONDITION, `ApplyOverridesFailed: ${rendered?.ok === false ? rendered.message : "nothing rendered"}`);
    return { manifests: rendered.manifests, contentHash: rendered.hash, placed: false, template };
  }

  private listWorks(req: ListWorksRequest): ListWorksResponse {
    if (req.cluster === "") throw new RpcError(GrpcStatus.INVALID_ARGUMENT, "a cluster is required");
    if (this.caches.clusters.get(req.cluster) === undefined) throw new RpcError(GrpcStatus.NOT_FOUND, `cluster ${JSON.stringify(req.cluster)} is not registered`);
    return {
      works: this.works
        .keys(req.cluster)
        .sort()
        .map((key) => {
          const s = this.statuses.get(key).get(req.cluster);
          return {
            workKey: key,
            contentHash: this.works.get(req.cluster, key)?.hash ?? "",
            observedHash: s?.observedHash ?? "",
            applied: s?.applied ?? false,
            available: s?.available ?? false,
            reason: s?.reason ?? "",
          };
        }),
    };
  }

  private listBindings(req: ListBindingsRequest): ListBindingsResponse {
    const bindings = this.caches
      .allBindings()
      .filter((b) => req.namespace === "" || b.metadata.namespace === req.namespace)
      .map((b) => {
        const cond = (type: string) => b.status?.conditions?.find((c) => c.type === type);
        const problem = [cond("Scheduled"), cond("FullyApplied"), cond("Propagation")].find((c) => c !== undefined && c.status !== "True");
        return {
          namespace: b.metadata.namespace ?? "",
          name: b.metadata.name ?? "",
          template: { apiVersion: b.spec.resource.apiVersion, kind: b.spec.resource.kind, namespace: b.spec.resource.namespace ?? "", name: b.spec.resource.name },
          clusters: b.spec.clusters.map((c) => (c.replicas === undefined ? c.name : `${c.name}=${c.replicas}`)),
          scheduled: cond("Scheduled")?.status ?? "Unknown",
          fullyApplied: cond("FullyApplied")?.status ?? "Unknown",
          reason: problem?.reason ?? "",
        };
      })
      .sort((a, b) => (`${a.namespace}/${a.name}` < `${b.namespace}/${b.name}` ? -1 : 1));
    return { bindings };
  }

  private async unjoin(req: UnjoinRequest): Promise<UnjoinResponse> {
    const c = this.caches.clusters.get(req.cluster);
    if (c === undefined) throw new RpcError(GrpcStatus.NOT_FOUND, `cluster ${JSON.stringify(req.cluster)} is not registered`);
    const path = objectPath(RESOURCES.cluster, undefined, req.cluster);
    const gone = (err: unknown) => {
      if (!isKubeStatus(err, 404)) throw err;
    };
    if (req.force) await this.rest.mergePatch(path, { metadata: { annotations: { [FORCE_ANNOTATION]: "true" } } }).catch(gone);
    await this.rest.delete(path).catch(gone);
    this.log.info({ cluster: req.cluster, force: req.force }, "unjoin requested");
    if (req.force) return { message: `cluster ${req.cluster} removed; bindings waiting on it are released (its member keeps what Flotilla applied)` };
    if (!(c.metadata.finalizers ?? []).includes(CLUSTER_FINALIZER)) return { message: `cluster ${req.cluster} removed` };
    const waiting = this.waitingOn(req.cluster);
    return { message: `cluster ${req.cluster} unjoining: its agent removes what Flotilla applied (${waiting} binding${waiting === 1 ? "" : "s"} to go), then the Cluster goes` };
  }
}
