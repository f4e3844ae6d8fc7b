// A fleet in memory for the deletion model test (deletion-model.test.ts): the user's operations and
// the faults, driven through the real decision code of every removal path, with an oracle of
// allowed deletions written apart from it.
//
// Real: the scheduler's claim and the binding it writes (claimPolicy, placeTemplate), which clusters a
// workload needs its dependency in (requiredClusters), the hub's judge of a Work's absence
// (deletionIntent, with unjoining and the workloads that need a dependency), the hub's per-stream deletions (OutboundDeletions: the brake,
// holds for a cluster that registered again, a person's approve or reject), the agent's apply
// decision (decideApply), the replicas a member HPA holds (retainMemberOwned), its judge of one
// member object with a Namespace's contents (judgeMemberDeletion), its record updates (recordAgain)
// and its orphan scan (adoptOrphans).
// Modelled: the stores and streams between them (a binding keeps its last placement while no
// policy claims its template, a dependency's binding is released once no workload needs it, and a
// binding goes once its template is deleted, or it was released, and no agent holds its Work; a
// Hello names what the records hold), and the member apiserver (objects with uids, a namespace that
// takes its contents with it, an HPA's replicas).
import type { AppliedRecord, AppliedResource } from "../agent/judge/applied-record.ts";
import { AGENT_CREATED_ANNOTATION, decideApply } from "../agent/apply/apply-decision.ts";
import { isOurs, judgeMemberDeletion } from "../agent/judge/deletion-judge.ts";
import { WORK_KEY_ANNOTATION } from "../shared/work-key.ts";
import { adoptOrphans } from "../agent/judge/orphans.ts";
import { recordAgain } from "../agent/judge/prune-decision.ts";
import { retainMemberOwned } from "../agent/apply/retain.ts";
import { requiredClusters } from "../control-plane/detector/dependencies.ts";
import { deletionIntent } from "../control-plane/hub/deletion-intent.ts";
import { type Intent, OutboundDeletions } from "../control-plane/hub/outbound-deletions.ts";
import { bindingPolicyId, claimPolicy } from "../control-plane/scheduling/policy-match.ts";
import { placeTemplate } from "../control-plane/detector/template-placement.ts";
import { bindingName } from "../control-plane/scheduling/binding-spec.ts";
import { API_VERSION, type Cluster, type KubeObject, LABELS, type PropagationPolicy, type ResourceBinding } from "../shared/api/types.ts";
import { judgedLeaving } from "../shared/cluster-unjoin.ts";
import { AGENT_FEATURES } from "../shared/protocol.ts";
import { requiresOf } from "../shared/workload-requires.ts";
import { workKey, workKeyLabelValue } from "../shared/work-key.ts";

export const CLUSTERS = ["m1", "m2", "m3"] as const;
/** The templates in namespace NS: ConfigMaps a, b and c, and Deployment d, whose pods mount c. */
export const TEMPLATES = ["a", "b", "c", "d"] as const;
export const POLICIES = ["p1", "p2"] as const;
/** The workload, and the ConfigMap it mounts (propagateDeps brings it along). */
export const WORKLOAD = "d";
export const MOUNTED = "c";
/** The namespace of the templates; its Namespace template is placed by a ClusterPropagationPolicy of its own. */
export const NS = "app";
const SETTLE_MS = 10_000;
const CONFIG_MAP = { apiVersion: "v1", kind: "ConfigMap" };
const KINDS: Readonly<Record<string, { apiVersion: string; kind: string }>> = { a: CONFIG_MAP, b: CONFIG_MAP, c: CONFIG_MAP, [WORKLOAD]: { apiVersion: "apps/v1", kind: "Deployment" }, [NS]: { apiVersion: "v1", kind: "Namespace" } };
/** A template's kind (a user's copy is of its original's). */
const kindOf = (t: string) => KINDS[t.replace(/-copy$/, "")] ?? CONFIG_MAP;

export type Op =
  | { op: "template"; t: string }
  | { op: "deleteTemplate"; t: string }
  | { op: "policy"; p: string; names: string[]; by: Placement; deps?: boolean; held?: boolean }
  | { op: "deletePolicy"; p: string }
  | { op: "nsPolicy"; by: Placement }
  | { op: "deleteNsPolicy" }
  | { op: "scale"; replicas: number }
  | { op: "hpa"; c: string; on: boolean }
  | { op: "autoscale"; c: string; replicas: number }
  | { op: "hpaListed"; c: string }
  | { op: "label"; c: string; env: string | undefined }
  | { op: "ready"; c: string; ready: boolean }
  | { op: "restartAgent"; c: string }
  | { op: "reregister"; c: string }
  | { op: "unjoin"; c: string }
  | { op: "forceUnjoin"; c: string }
  | { op: "userCopy"; c: string; t: string }
  | { op: "userRecreate"; c: string; t: string }
  | { op: "staleTemplates" }
  | { op: "loseDeletes"; c: string }
  | { op: "decide"; c: string; decision: "approve" | "reject" }
  | { op: "deleteBinding"; t: string; unseen?: boolean };

type Placement = { clusters: string[] } | { env: string };

interface MemberObject {
  name: string;
  uid: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** A Deployment's spec.replicas. */
  replicas?: number;
}

/** A template's binding: clusters placed, the policy that claims it and whether it propagates dependencies, where the workload requires it (a dependency), released. */
interface ModelBinding {
  /** As the binding controller wrote it. */
  rb: ResourceBinding;
  clusters: string[];
  claimant: string | undefined;
  propagateDeps: boolean;
  requiredBy?: string[];
  /** Deleted on purpose: no workload needs this dependency any more (DependencyReleased). */
  released?: boolean;
}

interface ClusterState {
  obj: Cluster;
  ready: boolean;
  /** Ready again this round: not settled yet (readyForMs 0). */
  justReady: boolean;
  /** The user unjoined it (not by force): everything Flotilla applied there may go. */
  unjoined: boolean;
  /** Force-unjoined: its Cluster is gone (after this round), its member keeps what it runs, until it registers again. */
  gone: boolean;
}

/** What the oracle knows of an object Flotilla applied: its template, and what allows its deletion. */
interface Made {
  cluster: string;
  template: string;
  /** The registration (Cluster uid) it was last given under. */
  registration: string;
}

const keyOf = (t: string) => workKey({ ...kindOf(t), ...(t === NS ? {} : { namespace: NS }), name: t });
const templateOfKey = (key: string) => key.split("/").at(-1) as string;
const WORKLOAD_BINDING = bindingName({ ...kindOf(WORKLOAD), name: WORKLOAD });

export class ModelFleet {
  private n = 0;
  private rounds = 0;
  /** Whether the workload's dependencies are followed (DependencyTracker.follows): once under propagateDeps, until its template is deleted. */
  private followed = false;
  /** template → its uid (the Namespace template NS always lives: deleting it would delete every template). */
  readonly templates = new Map<string, string>();
  /** template → its content's generation: an agent applies a Work again only when it changed (or it holds none). */
  private readonly generation = new Map<string, string>();
  /** The workload's spec.replicas in its template. */
  private replicas = 2;
  readonly policies = new Map<string, PropagationPolicy>();
  readonly clusters = new Map<string, ClusterState>();
  readonly bindings = new Map<string, ModelBinding>();
  /** The binding controller's memory of the bindings it saw deleted without intent (lost-bindings.ts). */
  private readonly lost = new Map<string, ModelBinding>();
  readonly members = new Map<string, Map<string, MemberObject>>();
  readonly records = new Map<string, Map<string, AppliedRecord>>();
  /** cluster → the Cluster uid its agent's certificate names. */
  readonly registration = new Map<string, string>();
  private readonly sessions = new Map<string, OutboundDeletions>();
  /** cluster → the templates its stream's placement gave last round (a newly placed one is sent as an upsert). */
  private readonly sent = new Map<string, Set<string>>();
  private staleTemplates = false;
  private readonly goneAfterRound = new Set<string>();
  private readonly losing = new Set<string>();
  /** Members with an HPA that scales the workload (its replicas are the member's). */
  private readonly hpa = new Set<string>();
  /** Agents whose HPA informer has not listed yet (a new process). */
  private readonly hpaUnlisted = new Set<string>();
  /** What a person approved, by cluster (Work keys), until given again: those deletions were meant (an agent that kept a Namespace for its contents carries one out later). */
  private readonly approved = new Map<string, Set<string>>();
  /** cluster → Work keys whose removal the hub sent (the agent may not have got it: lost): the oracle's "its workload was told to go first". */
  private readonly removalSent = new Map<string, Set<string>>();
  readonly made = new Map<string, Made>();
  /**
   * Registration (Cluster uid) → the env label the admin gave it. A new registration has none until
   * the admin sets it again; what an earlier one was given keeps the labels it was placed by.
   */
  private readonly adminEnv = new Map<string, string | undefined>();
  /** The oracle's: template → the policy that claims it now. */
  private readonly claim = new Map<string, PropagationPolicy>();
  /** The oracle's: template → the clusters its policy selected when one last claimed it (a template no policy claims keeps them). */
  private readonly frozen = new Map<string, Set<string>>();
  /** The oracle's: the clusters the workload brought its ConfigMap to (its policy propagated dependencies while selecting them). */
  private readonly broughtAlong = new Set<string>();
  /** The oracle's: the workloads running when this round began (uids): one applied in this round has no pods yet that mount anything. */
  private running = new Set<string>();
  readonly violations: string[] = [];
  deletions = 0;
  held = 0;
  /** Writes of the workload's replicas over what a member HPA set. */
  resets = 0;

  /** What the hub is told of earlier registrations: nothing reproduces a hub before issue 37, item 7 (the test shows the oracle catches it). */
  private readonly earlierRegistrations: boolean;
  /** Records keep the uid applied: without, an agent before issue 37's judge (the test shows the oracle catches it). */
  private readonly uids: boolean;
  /** A Cluster deleted by unjoin --force is no unjoin: without, the hub before issue 37, item 9 (the test shows the oracle catches it). */
  private readonly forceAware: boolean;
  /** A Namespace's other Works' objects count as its contents: without, the agent before issue 37, item 1, which ignored anything with a work label. */
  private readonly containment: boolean;
  /** A workload whose policy stops propagating dependencies still holds them where it runs: without, the control plane before issue 37, item 2. */
  private readonly heldDependencies: boolean;
  /** HPAs not listed yet keep the live replicas: without, the agent before issue 37, item 4, which read "not listed" as "no HPA". */
  private readonly unlistedKeeps: boolean;
  /** A workload whose binding is missing keeps what it required: without, the control plane before it (unbound-parent.ts). */
  private readonly unboundKeeps: boolean;
  /** A binding made again while held says its clusters are undecided (placement-unknown): without, the control plane before it. */
  private readonly undecidedKnown: boolean;

  constructor(opts: ModelOptions = {}) {
    this.earlierRegistrations = opts.earlierRegistrations ?? true;
    this.forceAware = opts.forceAware ?? true;
    this.uids = opts.uids ?? true;
    this.containment = opts.containment ?? true;
    this.heldDependencies = opts.heldDependencies ?? true;
    this.unlistedKeeps = opts.unlistedKeeps ?? true;
    this.undecidedKnown = opts.undecidedKnown ?? true;
    this.unboundKeeps = opts.unboundKeeps ?? true;
    this.templates.set(NS, this.uid("tpl"));
    this.generation.set(NS, this.uid("gen"));
    for (const c of CLUSTERS) {
      this.clusters.set(c, { obj: this.clusterObject(c, undefined), ready: true, justReady: false, unjoined: false, gone: false });
      this.members.set(c, new Map());
      this.records.set(c, new Map());
      this.registration.set(c, this.clusters.get(c)?.obj.metadata.uid ?? "");
    }
  }

  private uid(prefix: string): string {
    return `${prefix}-${++this.n}`;
  }

  private clusterObject(name: string, env: string | undefined, uid = this.uid(`cluster-${name}`)): Cluster {
    return {
      apiVersion: API_VERSION,
      kind: "Cluster",
      metadata: { name, uid, labels: env === undefined ? {} : { env } },
      spec: {},
      status: { conditions: [{ type: "Ready", status: "True", reason: "", message: "", lastTransitionTime: "" }] },
    };
  }

  /** The template as the control cluster holds it. */
  private templateOf(t: string, uid: string): KubeObject {
    return { ...kindOf(t), metadata: { name: t, ...(t === NS ? {} : { namespace: NS }), uid }, ...(t === WORKLOAD ? { spec: { replicas: this.replicas } } : {}) };
  }

  apply(o: Op): void {
    switch (o.op) {
      case "template":
        // Made, or edited: a new generation the agents apply.
        if (!this.templates.has(o.t)) this.templates.set(o.t, this.uid("tpl"));
        this.generation.set(o.t, this.uid("gen"));
        break;
      case "deleteTemplate":
        // The oracle's memory of its claims goes with it: a template made again was never claimed.
        this.templates.delete(o.t);
        this.lost.delete(o.t);
        if (o.t === WORKLOAD) this.followed = false;
        this.claim.delete(o.t);
        this.frozen.delete(o.t);
        break;
      case "scale":
        this.replicas = o.replicas;
        if (this.templates.has(WORKLOAD)) this.generation.set(WORKLOAD, this.uid("gen"));
        break;
      case "policy":
        this.policies.set(o.p, {
          apiVersion: API_VERSION,
          kind: "PropagationPolicy",
          metadata: { name: o.p, namespace: NS },
          // Held: a schedulerName Flotilla does not serve (policy-activation.ts): its bindings keep what they have.
          spec: { resourceSelectors: o.names.map((name) => ({ ...kindOf(name), name })), placement: placementOf(o.by), ...(o.deps ? { propagateDeps: true } : {}), ...(o.held ? { schedulerName: "volcano" } : {}) },
        });
        break;
      case "deletePolicy":
        this.policies.delete(o.p);
        break;
      case "nsPolicy":
        this.policies.set("cp", { apiVersion: API_VERSION, kind: "ClusterPropagationPolicy", metadata: { name: "cp" }, spec: { resourceSelectors: [{ ...kindOf(NS), name: NS }], placement: placementOf(o.by) } });
        break;
      case "deleteNsPolicy":
        this.policies.delete("cp");
        break;
      case "label": {
        const c = this.clusters.get(o.c);
        if (c === undefined || c.unjoined) break;
        this.adminEnv.set(c.obj.metadata.uid ?? "", o.env);
        c.obj = { ...c.obj, metadata: { ...c.obj.metadata, labels: o.env === undefined ? {} : { env: o.env } } };
        break;
      }
      case "ready": {
        const c = this.clusters.get(o.c);
        if (c === undefined) break;
        if (o.ready && !c.ready) c.justReady = true;
        c.ready = o.ready;
        if (!o.ready) this.sessions.delete(o.c);
        break;
      }
      case "restartAgent": {
        // A new process: its HPA informer not listed yet; after its first sync it adopts objects that carry a Work's label and annotation but no record names.
        this.sessions.delete(o.c);
        this.hpaUnlisted.add(o.c);
        const records = this.records.get(o.c) as Map<string, AppliedRecord>;
        const labelled = [...(this.members.get(o.c)?.values() ?? [])].map(asKube);
        for (const r of adoptOrphans(records, labelled)) records.set(r.key, r);
        break;
      }
      case "hpaListed":
        this.hpaUnlisted.delete(o.c);
        break;
      case "hpa":
        if (o.on) this.hpa.add(o.c);
        else this.hpa.delete(o.c);
        break;
      case "autoscale": {
        // The member's HPA controller scales the workload (through its scale subresource).
        const live = this.members.get(o.c)?.get(WORKLOAD);
        if (live !== undefined && this.hpa.has(o.c)) live.replicas = o.replicas;
        break;
      }
      case "forceUnjoin": {
        // unjoin --force while the agent is connected: the Cluster is deleted, its finalizer released at once.
        const c = this.clusters.get(o.c);
        if (c === undefined || c.unjoined || c.gone) break;
        c.obj = { ...c.obj, metadata: { ...c.obj.metadata, deletionTimestamp: "2026-11-30T00:00:00Z", annotations: { [LABELS.unjoinForce]: "true" } } };
        this.goneAfterRound.add(o.c);
        break;
      }
      case "reregister": {
        // (After unjoin --force, if not yet) the member registers again: a new Cluster (no labels), a new certificate.
        const c = this.clusters.get(o.c);
        if (c === undefined || c.unjoined) break;
        c.gone = false;
        c.obj = this.clusterObject(o.c, undefined);
        this.registration.set(o.c, c.obj.metadata.uid ?? "");
        this.sessions.delete(o.c);
        break;
      }
      case "unjoin": {
        const c = this.clusters.get(o.c);
        if (c === undefined || c.unjoined) break;
        c.unjoined = true;
        c.obj = { ...c.obj, metadata: { ...c.obj.metadata, deletionTimestamp: "2026-11-30T00:00:00Z" } };
        break;
      }
      case "userCopy": {
        // kubectl get -o yaml | sed 's/name: t/name: t-copy/' | kubectl apply: the labels travel.
        const live = this.members.get(o.c)?.get(o.t);
        if (live !== undefined) this.members.get(o.c)?.set(`${o.t}-copy`, { ...structuredClone(live), name: `${o.t}-copy`, uid: this.uid("user") });
        break;
      }
      case "userRecreate": {
        // Deleted by hand and applied again from a backup: another object, Flotilla's labels and all.
        const live = this.members.get(o.c)?.get(o.t);
        if (live !== undefined) this.members.get(o.c)?.set(o.t, { ...structuredClone(live), uid: this.uid("user") });
        break;
      }
      case "staleTemplates":
        this.staleTemplates = true;
        break;
      case "loseDeletes":
        this.losing.add(o.c);
        break;
      case "deleteBinding": {
        // By hand (or lost in a restore): the status controller releases it at once while its
        // template lives, and the binding controller makes it again, from the binding as it was
        // when it saw it go (lost-bindings.ts), or from nothing after a restart.
        // `unseen`: lost where no process saw it go (a restore, or deleted while the control plane was down).
        const b = this.bindings.get(o.t);
        if (b !== undefined && b.released !== true && o.unseen !== true) this.lost.set(o.t, b);
        this.bindings.delete(o.t);
        break;
      }
      case "decide": {
        // What the person's answer covers: what was held then (and what waited for one of those).
        const keys = this.sessions.get(o.c)?.decide(o.decision) ?? [];
        if (o.decision === "approve") for (const k of keys) this.approved.set(o.c, (this.approved.get(o.c) ?? new Set()).add(k));
        break;
      }
    }
  }

  /** One round: bindings from the policies, then each connected agent's stream. */
  reconcile(): void {
    this.running = new Set(CLUSTERS.flatMap((c) => this.members.get(c)?.get(WORKLOAD)?.uid ?? []));
    for (const [t, uid] of this.templates) {
      // The claimant the binding controller keeps: its binding's, or the one it remembers of a binding deleted by hand.
      const kept = this.bindings.get(t) ?? (this.lost.get(t)?.rb.spec.resource.uid === uid ? this.lost.get(t) : undefined);
      const claim = claimPolicy(this.templateOf(t, uid), [...this.policies.values()], kept?.claimant);
      // A held policy (a schedulerName not served) takes no effect: as with no claim, the template
      // keeps what its last claim in effect selected, whatever the clusters' labels do meanwhile.
      if (claim === undefined || claim.policy.spec.schedulerName !== undefined) {
        this.claim.delete(t);
        continue;
      }
      this.claim.set(t, structuredClone(claim.policy));
      this.frozen.set(t, new Set(CLUSTERS.filter((c) => selects(claim.policy, c, this.adminEnv.get(this.clusters.get(c)?.obj.metadata.uid ?? "")))));
    }
    this.noteBroughtAlong();
    this.schedule();
    for (const c of CLUSTERS) this.stream(c);
    // A binding deleted (its template, or released) goes once no agent holds its Work (every removal confirmed).
    for (const [t, b] of [...this.bindings]) {
      if ((!this.templates.has(t) || b.released === true) && CLUSTERS.every((c) => !this.records.get(c)?.has(keyOf(t)))) this.bindings.delete(t);
    }
    this.staleTemplates = false;
    for (const name of this.goneAfterRound) {
      const c = this.clusters.get(name) as ClusterState;
      c.gone = true;
      this.sessions.delete(name);
    }
    this.goneAfterRound.clear();
    this.losing.clear();
    for (const c of this.clusters.values()) c.justReady = false;
  }

  /** The oracle's: where the workload's policy, propagating dependencies, brings its ConfigMap; where the workload is no longer wanted, nothing holds it. */
  private noteBroughtAlong(): void {
    const policy = this.claim.get(WORKLOAD);
    for (const c of CLUSTERS) {
      // Either template deleted ends it: a ConfigMap made again is brought along only by a policy that propagates it again.
      if (!this.templates.has(WORKLOAD) || !this.templates.has(MOUNTED)) this.broughtAlong.delete(c);
      else if (policy !== undefined && !this.wantedBy(WORKLOAD, c, this.registration.get(c) ?? "")) this.broughtAlong.delete(c);
      else if (policy?.spec.propagateDeps === true && this.wantedBy(WORKLOAD, c, this.registration.get(c) ?? "")) this.broughtAlong.add(c);
    }
  }

  /** The binding controller: each template's binding from its claim and what its workload requires (template-placement.ts). */
  private schedule(): void {
    const placeable = CLUSTERS.map((c) => this.clusters.get(c) as ClusterState).filter((c) => !c.unjoined && !c.gone && c.obj.metadata.deletionTimestamp === undefined).map((c) => c.obj);
    // The binding controller writes the workload's and its ConfigMap's bindings in either order (it
    // requeues a dependency when its workload's binding changes, while the hub judges meanwhile):
    // every other round the ConfigMap's first.
    this.rounds++;
    const order = [...this.templates].sort(([a], [b]) => (Number(a === MOUNTED) - Number(b === MOUNTED)) * (this.rounds % 2 === 0 ? 1 : -1));
    for (const [t, uid] of order) {
      let previous = this.bindings.get(t);
      // Remembered until a binding is made again (or the template goes): a round that makes none keeps it (lost-bindings.ts).
      const lost = this.lost.get(t);
      if (previous === undefined && lost !== undefined && lost.rb.spec.resource.uid === uid) previous = lost;
      const template = this.templateOf(t, uid);
      // A template deleted and made again: its old binding, being deleted, goes at once as one deleted
      // by hand (the status controller releases its finalizer while the template lives), and the new
      // one is written in the same breath.
      if (previous !== undefined && previous.rb.spec.resource.uid !== uid) {
        this.bindings.delete(t);
        previous = undefined;
      }
      let match = claimPolicy(template, [...this.policies.values()], previous?.claimant);
      let required = t === MOUNTED ? this.requiredBy(previous) : undefined;
      // Released: the new binding waits until the old one is gone. Claimed or required again meanwhile,
      // the reason comes off (binding-release.ts unreleaseBinding), it goes at once as one deleted by
      // hand, and the new one is written in the same breath (judged afresh, with nothing before it).
      if (previous?.released === true) {
        if (match === undefined && required === undefined) continue;
        this.bindings.delete(t);
        previous = undefined;
        match = claimPolicy(template, [...this.policies.values()], undefined);
        required = t === MOUNTED ? this.requiredBy(undefined) : undefined;
      }
      if (match === undefined && required === undefined) {
        // A dependency's own binding no workload needs any more is released (after a grace period); one a policy made keeps its last placement (DESIGN §11).
        if (previous !== undefined && this.bindings.get(t) === previous && previous.claimant === undefined && previous.requiredBy !== undefined) previous.released = true;
        continue;
      }
      const requiredBy = required === undefined ? [] : [{ name: WORKLOAD_BINDING, clusters: required }];
      // The workload says on its binding that it refers to the ConfigMap while its dependencies are followed: under propagateDeps, and after it (DependencyTracker.known).
      if (t === WORKLOAD && match?.policy.spec.propagateDeps === true) this.followed = true;
      // Before issue 37, item 2 (heldDependencies off), nothing held a dependency once its workload's policy stopped propagating it.
      const requires = t === WORKLOAD && (this.heldDependencies ? this.followed : match?.policy.spec.propagateDeps === true) ? [keyOf(MOUNTED)] : [];
      const placed = placeTemplate({ template, policy: match?.policy, existing: previous?.rb, live: placeable, requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy, requires, interpreter: undefined });
      if (!("desired" in placed)) throw new Error(`${t}: ${placed.interpreterFailed}`);
      const rb = placed.desired;
      // Before: a binding made again while held or over quota said nothing of its undecided clusters.
      if (!this.undecidedKnown) delete rb.metadata.annotations?.[LABELS.placementUnknown];
      const needs = rb.spec.requiredBy?.find((r) => r.name === WORKLOAD_BINDING)?.clusters;
      this.bindings.set(t, { rb, clusters: rb.spec.clusters.map((c) => c.name), claimant: bindingPolicyId(rb), propagateDeps: rb.spec.propagateDeps === true, ...(needs === undefined ? {} : { requiredBy: needs }) });
      this.lost.delete(t);
    }
  }

  /** Where the workload's binding requires its ConfigMap (dependency-tracker.ts over requiredClusters): undefined for nowhere. */
  private requiredBy(previous: ModelBinding | undefined): string[] | undefined {
    const parent = this.bindings.get(WORKLOAD);
    if (!this.templates.has(WORKLOAD)) return undefined;
    // A workload whose binding is missing (deleted by hand, not made again) still runs where it ran: what it required stays (unbound-parent.ts).
    if (parent === undefined) return this.unboundKeeps ? previous?.requiredBy : undefined;
    if (parent.released === true) return undefined;
    const before = previous?.requiredBy === undefined ? undefined : { name: WORKLOAD_BINDING, clusters: previous.requiredBy };
    const asParent = { name: WORKLOAD_BINDING, propagateDeps: parent.propagateDeps, clusters: parent.clusters };
    // Before issue 37, item 2: a workload whose policy did not propagate dependencies required nothing.
    if (!this.heldDependencies && !parent.propagateDeps) return undefined;
    return requiredClusters(asParent, before, true);
  }

  /** The binding as the hub's informer shows it: being deleted once its template is, or released (saying why). */
  private binding(t: string): ResourceBinding | undefined {
    const b = this.bindings.get(t);
    if (b === undefined) return undefined;
    const deleted = !this.templates.has(t) || b.released === true;
    const metadata = { ...b.rb.metadata, ...(deleted ? { deletionTimestamp: "2026-11-30T00:00:00Z" } : {}), ...(b.released === true ? { annotations: { [LABELS.releasedBecause]: "DependencyReleased" } } : {}) };
    return { ...b.rb, metadata };
  }

  private intent(cluster: string, key: string): Intent | undefined {
    const c = this.clusters.get(cluster) as ClusterState;
    const t = templateOfKey(key);
    const uid = this.templates.get(t);
    const template = this.staleTemplates ? { known: false as const } : { known: true as const, template: uid === undefined ? undefined : this.templateOf(t, uid) };
    // The hub's own rule (control-plane/hub/index.ts): a Cluster unjoined by force is judged for nothing.
    const leaving = this.forceAware ? judgedLeaving(c.obj) : c.obj.metadata.deletionTimestamp !== undefined;
    if (leaving === undefined) return undefined;
    // The hub's lookup (control-plane/hub/index.ts): the workloads its requiredBy names, and those whose binding says they require it.
    const binding = this.binding(t);
    const workload = this.binding(WORKLOAD);
    const needing = () => (workload !== undefined && (binding?.spec.requiredBy?.some((r) => r.name === WORKLOAD_BINDING) === true || requiresOf(workload).includes(key)) ? [workload] : []);
    // The agent's holdings as the hub's session knows them: what the agent reported or was sent, and was not sent the removal of.
    const runs = (workKey: string) => this.sessions.get(cluster)?.inTheWay(workKey) === true;
    return deletionIntent({ name: cluster, leaving, readyForMs: !c.ready ? 0 : c.justReady ? 0 : Infinity, accepted: true }, binding, template, SETTLE_MS, { needing, runs });
  }

  /** The cluster's agent stream: a new one says Hello; the hub sends what the binding places and the removals it judges. */
  private stream(cluster: string): void {
    const c = this.clusters.get(cluster) as ClusterState;
    const connected = c.ready && !c.gone && this.registration.get(cluster) === c.obj.metadata.uid;
    if (!connected) return;
    const records = this.records.get(cluster) as Map<string, AppliedRecord>;
    const members = this.members.get(cluster) as Map<string, MemberObject>;
    const current = this.registration.get(cluster);
    const placed = new Set(
      c.unjoined || c.obj.metadata.deletionTimestamp !== undefined ? [] : [...this.bindings].filter(([t, b]) => this.templates.has(t) && b.released !== true && b.clusters.includes(cluster)).map(([t]) => t),
    );
    let session = this.sessions.get(cluster);
    const before = this.sent.get(cluster) ?? new Set<string>();
    if (session === undefined) {
      // Hello: the records' Works; those of an earlier registration that the placement does not give this one now.
      session = new OutboundDeletions({ cluster, intent: (key) => this.intent(cluster, key), budget: { percent: 50, min: 2, windowMs: 60_000 }, onHeld: () => this.held++, now: () => 0 });
      this.removalSent.delete(cluster);
      session.agentDeclared(AGENT_FEATURES);
      for (const key of records.keys()) session.holding(key);
      const earlier = [...records.values()].filter((r) => r.registration !== undefined && r.registration !== current && !placed.has(templateOfKey(r.key)));
      if (this.earlierRegistrations) session.registeredEarlier(earlier.map((r) => r.key));
      this.sessions.set(cluster, session);
      // The placement gives this registration what it names now (the oracle's view of intent).
      for (const t of placed) this.given(cluster, t);
      before.clear();
      // The hub sends an earlier registration's Work it places again, even at the same hash.
      for (const t of placed) if (records.get(keyOf(t))?.hash === this.generation.get(t) && records.get(keyOf(t))?.registration === current) before.add(t);
    }
    for (const t of placed) {
      // An upsert: a Work new to this stream's placement, or of another hash than the agent's.
      if (before.has(t) && records.get(keyOf(t))?.hash === this.generation.get(t)) continue;
      session.holding(keyOf(t));
      this.removalSent.get(cluster)?.delete(keyOf(t));
      this.approved.get(cluster)?.delete(keyOf(t));
      this.applyWork(cluster, t, records, members);
    }
    this.sent.set(cluster, placed);
    // A removal the agent kept (a Namespace that holds what others want) stays in its record and is tried again each round.
    for (const key of [...records.keys()]) {
      if (placed.has(templateOfKey(key))) continue;
      const intent = session.deleteFor(key);
      if (intent !== undefined) this.removalSent.set(cluster, (this.removalSent.get(cluster) ?? new Set()).add(key));
      if (intent === undefined || this.losing.has(cluster)) continue;
      this.removeWork(cluster, key, intent, records, members);
    }
  }

  /** The agent applies a Work: over its object in place (the one the name asks for, if Flotilla's), or a new one. */
  private applyWork(cluster: string, t: string, records: Map<string, AppliedRecord>, members: Map<string, MemberObject>): void {
    const key = keyOf(t);
    const label = workKeyLabelValue(key);
    const hash = this.generation.get(t) ?? "";
    const record = records.get(key);
    let live = members.get(t);
    // The same hash: nothing to apply (a drift of its object waits for a change here); the record takes this registration.
    if (record !== undefined && record.hash === hash) {
      const again = recordAgain(record, [], false, false, this.registration.get(cluster));
      if (again !== undefined) records.set(key, again);
      this.given(cluster, t);
      return;
    }
    if (decideApply(live === undefined ? undefined : asKube(live), label, "Abort").action === "skip") return; // someone else's: AlreadyExists
    // A namespaced object's namespace: the agent makes it when missing (agent/apply/namespaces.ts), for a Namespace template to take over.
    if (t !== NS && !members.has(NS)) members.set(NS, { name: NS, uid: this.uid("ns"), labels: {}, annotations: { [AGENT_CREATED_ANNOTATION]: "true" } });
    const desired = this.templateOf(t, this.templates.get(t) ?? "");
    // The replicas a member HPA holds stay the member's (a not yet listed HPA informer is no answer).
    const scaled = this.hpaUnlisted.has(cluster) ? (this.unlistedKeeps ? undefined : false) : this.hpa.has(cluster);
    const replicas = t === WORKLOAD ? (retainMemberOwned(desired, live === undefined ? undefined : asKube(live), scaled).spec as { replicas: number }).replicas : undefined;
    if (live !== undefined && replicas !== undefined && this.hpa.has(cluster) && live.replicas !== replicas) {
      this.resets++;
      this.violations.push(`reset: ${cluster}/${t} replicas ${String(live.replicas)} → ${replicas} under the member's HPA`);
    }
    if (live === undefined) {
      live = { name: t, uid: this.uid("obj"), labels: {}, annotations: {} };
      members.set(t, live);
    }
    Object.assign(live, { labels: { [LABELS.work]: label }, annotations: { [WORK_KEY_ANNOTATION]: key } }, replicas === undefined ? {} : { replicas });
    this.made.set(live.uid, { cluster, template: t, registration: this.registration.get(cluster) ?? "" });
    const resource: AppliedResource = { ...kindOf(t), ...(t === NS ? {} : { namespace: NS }), name: t, ...(this.uids ? { uid: live.uid } : {}) };
    const registration = this.registration.get(cluster);
    const next = record === undefined ? { key, hash, resources: [resource], whole: true, ...(registration ? { registration } : {}) } : (recordAgain({ ...record, hash }, [resource], false, false, registration) ?? { ...record, hash });
    records.set(key, next);
  }

  /** The oracle's: the placement gave this cluster's current registration the Work of t (its object follows this registration's labels now). */
  private given(cluster: string, t: string): void {
    const o = this.members.get(cluster)?.get(t);
    const made = o === undefined ? undefined : this.made.get(o.uid);
    if (made !== undefined && made.cluster === cluster) made.registration = this.registration.get(cluster) ?? "";
  }

  /** The agent removes a Work: each recorded object as its judge says, then forgets the record (or keeps it while a Namespace it holds is kept). */
  private removeWork(cluster: string, key: string, intent: Intent, records: Map<string, AppliedRecord>, members: Map<string, MemberObject>): void {
    const record = records.get(key);
    if (record === undefined) return;
    const label = workKeyLabelValue(key);
    let kept = false;
    for (const r of record.resources) {
      const o = members.get(r.name);
      const live = o === undefined ? undefined : asKube(o);
      // Preserved: whichever object carries the Work's label stays, released (member-deletion.ts releaseIfOurs).
      if (intent.preserve) {
        if (o !== undefined && isOurs(live, label)) members.set(o.name, { ...o, labels: {}, annotations: {} });
        continue;
      }
      // A Namespace's contents: every other object (all live in it). Before issue 37, item 1: only those without a work label.
      const inside = r.kind === "Namespace" ? [...members.values()].filter((x) => x.name !== NS && (this.containment || x.labels[LABELS.work] === undefined)).map(asKube) : undefined;
      const verdict = judgeMemberDeletion({ live, recorded: r, label, record: record.resources, ...(inside === undefined ? {} : { contents: inside }) });
      // Not the object applied: kept, and released so that no orphan scan takes it for the Work's.
      if (!verdict.delete && verdict.keep === "replaced" && o !== undefined) members.set(o.name, { ...o, labels: {}, annotations: {} });
      if (!verdict.delete && verdict.keep === "holds") kept = true;
      if (!verdict.delete || o === undefined) continue;
      members.delete(o.name);
      this.deletions++;
      this.judge(cluster, o, intent.reason);
      // Kubernetes' namespace controller takes everything inside with it.
      if (r.kind !== "Namespace") continue;
      for (const x of [...members.values()]) {
        members.delete(x.name);
        this.deletions++;
        this.judge(cluster, x, `${intent.reason} (with its namespace)`);
      }
    }
    if (!kept) records.delete(key);
  }

  /** The oracle, apart from the code under test: was this deletion meant? */
  private judge(cluster: string, o: MemberObject, reason: string): void {
    const made = this.made.get(o.uid);
    const at = `${reason}: ${cluster}/${o.name} (${o.uid})`;
    if (made === undefined || made.cluster !== cluster) {
      this.violations.push(`${at}: not an object Flotilla applied there`);
      return;
    }
    if (this.approved.get(cluster)?.has(keyOf(made.template)) === true) return; // a person approved what was held
    if (!this.templates.has(made.template)) return; // the user deleted the template
    const c = this.clusters.get(cluster) as ClusterState;
    if (c.unjoined) return; // the user unjoined the cluster (not by force)
    if (this.wantedBy(made.template, cluster, made.registration)) this.violations.push(`${at}: the user's policy still places its template there`);
    // The workload's ConfigMap stays while the workload it was brought along for is wanted there and runs (any copy of it, a user's restore too).
    else if (made.template === MOUNTED && this.broughtAlong.has(cluster) && this.running.has(this.members.get(cluster)?.get(WORKLOAD)?.uid ?? "") && this.wantedBy(WORKLOAD, cluster, made.registration)) {
      this.violations.push(`${at}: the workload it was brought along for still runs there and mounts it`);
    }
    // Even when both are meant to go, the workload goes first: never the ConfigMap while Flotilla's workload it was brought along for still runs and was not told to go.
    else if (made.template === MOUNTED && this.broughtAlong.has(cluster) && this.records.get(cluster)?.has(keyOf(WORKLOAD)) === true && this.members.get(cluster)?.has(WORKLOAD) === true && this.removalSent.get(cluster)?.has(keyOf(WORKLOAD)) !== true) {
      this.violations.push(`${at}: before the workload it was brought along for, which still runs there`);
    }
  }

  /**
   * The oracle's: the user's placement as the user set it: the policy that claims the template, over
   * the labels the admin gave the registration the object was given under (a label lost to a new
   * registration is no intent); with no claim, what the last claim selected (a lost claim is no
   * intent either); never claimed, nothing.
   */
  private wantedBy(t: string, cluster: string, registration: string): boolean {
    const policy = this.claim.get(t);
    return policy === undefined ? this.frozen.get(t)?.has(cluster) === true : selects(policy, cluster, this.adminEnv.get(registration));
  }
}

export interface ModelOptions {
  earlierRegistrations?: boolean;
  uids?: boolean;
  forceAware?: boolean;
  containment?: boolean;
  heldDependencies?: boolean;
  unlistedKeeps?: boolean;
  undecidedKnown?: boolean;
  unboundKeeps?: boolean;
}

function placementOf(by: Placement): NonNullable<PropagationPolicy["spec"]["placement"]> {
  return "clusters" in by ? { clusterAffinity: { clusterNames: by.clusters } } : { clusterAffinity: { labelSelector: { matchLabels: { env: by.env } } } };
}

/** Whether a policy of the model (cluster names, or an env label) selects a cluster with that env. */
function selects(policy: PropagationPolicy, cluster: string, env: string | undefined): boolean {
  const affinity = policy.spec.placement?.clusterAffinity;
  return affinity?.clusterNames !== undefined ? affinity.clusterNames.includes(cluster) : env !== undefined && affinity?.labelSelector?.matchLabels?.env === env;
}

function asKube(o: MemberObject): KubeObject {
  const namespaced = o.name !== NS;
  return {
    ...kindOf(o.name),
    metadata: { name: o.name, ...(namespaced ? { namespace: NS } : {}), uid: o.uid, labels: o.labels, annotations: o.annotations },
    ...(o.replicas === undefined ? {} : { spec: { replicas: o.replicas } }),
  };
}
