// A fleet in memory for the deletion model test (deletion-model.test.ts): the user's operations and
// the faults, driven through the real decision code of every removal path, with an oracle of
// allowed deletions written apart from it.
//
// Real: the scheduler's claim and placement (claimPolicy, scheduleTemplate), the hub's judge of a
// Work's absence (deletionIntent, with unjoining), the hub's per-stream deletions (OutboundDeletions:
// the brake, holds for a cluster that registered again, a person's approve or reject), the
// agent's judge of one member object (judgeMemberDeletion) and its record updates (recordAgain).
// Modelled: the stores and streams between them (a binding keeps its last placement while no
// policy claims its template, and goes once its template is deleted and no agent holds its Work;
// a Hello names what the records hold), and the member apiserver (objects with uids).
import type { AppliedRecord, AppliedResource } from "../agent/applied-store.ts";
import { isOurs, judgeMemberDeletion } from "../agent/deletion-judge.ts";
import { WORK_KEY_ANNOTATION } from "../agent/object-watch.ts";
import { adoptOrphans } from "../agent/orphans.ts";
import { recordAgain } from "../agent/prune-decision.ts";
import { deletionIntent } from "../control-plane/hub/deletion-intent.ts";
import { type Intent, OutboundDeletions } from "../control-plane/hub/outbound-deletions.ts";
import { claimPolicy, policyIdOf } from "../control-plane/scheduling/policy-match.ts";
import { scheduleTemplate } from "../control-plane/scheduling/schedule.ts";
import { API_VERSION, type Cluster, type KubeObject, LABELS, type PropagationPolicy, type ResourceBinding } from "../shared/api/types.ts";
import { judgedLeaving } from "../shared/cluster-unjoin.ts";
import { workKeyLabelValue } from "../shared/work-key.ts";

export const CLUSTERS = ["m1", "m2", "m3"] as const;
export const TEMPLATES = ["a", "b", "c", "d"] as const;
export const POLICIES = ["p1", "p2"] as const;
const NS = "app";
const SETTLE_MS = 10_000;

export type Op =
  | { op: "template"; t: string }
  | { op: "deleteTemplate"; t: string }
  | { op: "policy"; p: string; names: string[]; by: { clusters: string[] } | { env: string } }
  | { op: "deletePolicy"; p: string }
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
  | { op: "decide"; c: string; decision: "approve" | "reject" };

interface MemberObject {
  name: string;
  uid: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
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

const keyOf = (t: string) => `core/v1/ConfigMap/${NS}/${t}`;
const templateOf = (t: string, uid: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: t, namespace: NS, uid } });

export class ModelFleet {
  private n = 0;
  readonly templates = new Map<string, string>();
  /** template → its content's generation: an agent applies a Work again only when it changed (or it holds none). */
  private readonly generation = new Map<string, string>();
  readonly policies = new Map<string, PropagationPolicy>();
  readonly clusters = new Map<string, ClusterState>();
  /** template → its binding: clusters placed, the policy that claims it, being deleted. */
  readonly bindings = new Map<string, { clusters: string[]; claimant: string | undefined }>();
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
  /** Decisions a person made this round: a held deletion sent now was meant. */
  private readonly decided = new Map<string, "approve" | "reject">();
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
  readonly violations: string[] = [];
  deletions = 0;
  held = 0;

  /** What the hub is told of earlier registrations: nothing reproduces a hub before issue 37, item 7 (the test shows the oracle catches it). */
  private readonly earlierRegistrations: boolean;
  /** Records keep the uid applied: without, an agent before issue 37's judge (the test shows the oracle catches it). */
  private readonly uids: boolean;

  /** A Cluster deleted by unjoin --force is no unjoin: without, the hub before issue 37, item 9 (the test shows the oracle catches it). */
  private readonly forceAware: boolean;

  constructor(opts: { earlierRegistrations?: boolean; uids?: boolean; forceAware?: boolean } = {}) {
    this.earlierRegistrations = opts.earlierRegistrations ?? true;
    this.forceAware = opts.forceAware ?? true;
    this.uids = opts.uids ?? true;
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

  apply(o: Op): void {
    switch (o.op) {
      case "template":
        // Made, or edited: a new generation the agents apply.
        if (!this.templates.has(o.t)) this.templates.set(o.t, this.uid("tpl"));
        this.generation.set(o.t, this.uid("gen"));
        break;
      case "deleteTemplate":
        this.templates.delete(o.t);
        break;
      case "policy": {
        const placement = "clusters" in o.by ? { clusterAffinity: { clusterNames: o.by.clusters } } : { clusterAffinity: { labelSelector: { matchLabels: { env: o.by.env } } } };
        this.policies.set(o.p, { apiVersion: API_VERSION, kind: "PropagationPolicy", metadata: { name: o.p, namespace: NS }, spec: { resourceSelectors: o.names.map((name) => ({ apiVersion: "v1", kind: "ConfigMap", name })), placement } });
        break;
      }
      case "deletePolicy":
        this.policies.delete(o.p);
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
        // A new process: after its first sync it adopts objects that carry a Work's label and annotation but no record names.
        this.sessions.delete(o.c);
        const records = this.records.get(o.c) as Map<string, AppliedRecord>;
        const labelled = [...(this.members.get(o.c)?.values() ?? [])].map(asKube);
        for (const r of adoptOrphans(records, labelled)) records.set(r.key, r);
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
        if (live !== undefined) this.members.get(o.c)?.set(`${o.t}-copy`, { name: `${o.t}-copy`, uid: this.uid("user"), labels: { ...live.labels }, annotations: { ...live.annotations } });
        break;
      }
      case "userRecreate": {
        // Deleted by hand and applied again from a backup: another object, Flotilla's labels and all.
        const live = this.members.get(o.c)?.get(o.t);
        if (live !== undefined) this.members.get(o.c)?.set(o.t, { name: o.t, uid: this.uid("user"), labels: { ...live.labels }, annotations: { ...live.annotations } });
        break;
      }
      case "staleTemplates":
        this.staleTemplates = true;
        break;
      case "loseDeletes":
        this.losing.add(o.c);
        break;
      case "decide":
        this.decided.set(o.c, o.decision);
        this.sessions.get(o.c)?.decide(o.decision);
        break;
    }
  }

  /** One round: bindings from the policies, then each connected agent's stream. */
  reconcile(): void {
    for (const [t, uid] of this.templates) {
      const claim = claimPolicy(templateOf(t, uid), [...this.policies.values()], this.bindings.get(t)?.claimant);
      if (claim === undefined) {
        this.claim.delete(t);
        continue;
      }
      this.claim.set(t, structuredClone(claim.policy));
      this.frozen.set(t, new Set(CLUSTERS.filter((c) => selects(claim.policy, c, this.adminEnv.get(this.clusters.get(c)?.obj.metadata.uid ?? "")))));
    }
    this.schedule();
    for (const c of CLUSTERS) this.stream(c);
    // A binding of a deleted template goes once no agent holds its Work (every removal confirmed).
    for (const t of [...this.bindings.keys()]) {
      if (!this.templates.has(t) && CLUSTERS.every((c) => !this.records.get(c)?.has(keyOf(t)))) this.bindings.delete(t);
    }
    this.staleTemplates = false;
    for (const name of this.goneAfterRound) {
      const c = this.clusters.get(name) as ClusterState;
      c.gone = true;
      this.sessions.delete(name);
    }
    this.goneAfterRound.clear();
    this.losing.clear();
    this.decided.clear();
    for (const c of this.clusters.values()) c.justReady = false;
  }

  private schedule(): void {
    const placeable = CLUSTERS.map((c) => this.clusters.get(c) as ClusterState).filter((c) => !c.unjoined && !c.gone && c.obj.metadata.deletionTimestamp === undefined).map((c) => c.obj);
    for (const [t, uid] of this.templates) {
      const previous = this.bindings.get(t);
      const match = claimPolicy(templateOf(t, uid), [...this.policies.values()], previous?.claimant);
      // No policy claims it: the binding keeps its last placement (DESIGN §11).
      if (match === undefined) continue;
      const s = scheduleTemplate(templateOf(t, uid), match.policy, placeable, (previous?.clusters ?? []).map((name) => ({ name })));
      this.bindings.set(t, { clusters: s.targets.map((x) => x.name), claimant: policyIdOf(match.policy) });
    }
  }

  private binding(t: string): ResourceBinding | undefined {
    const b = this.bindings.get(t);
    if (b === undefined) return undefined;
    return {
      apiVersion: API_VERSION,
      kind: "ResourceBinding",
      metadata: { name: `${t}-configmap`, namespace: NS, ...(this.templates.has(t) ? {} : { deletionTimestamp: "2026-11-30T00:00:00Z" }) },
      spec: { resource: { apiVersion: "v1", kind: "ConfigMap", namespace: NS, name: t }, clusters: b.clusters.map((name) => ({ name })) },
    };
  }

  private intent(cluster: string, key: string): Intent | undefined {
    const c = this.clusters.get(cluster) as ClusterState;
    const t = key.split("/").at(-1) as string;
    const uid = this.templates.get(t);
    const template = this.staleTemplates ? { known: false as const } : { known: true as const, template: uid === undefined ? undefined : templateOf(t, uid) };
    // The hub's own rule (control-plane/hub/index.ts): a Cluster unjoined by force is judged for nothing.
    const leaving = this.forceAware ? judgedLeaving(c.obj) : c.obj.metadata.deletionTimestamp !== undefined;
    if (leaving === undefined) return undefined;
    return deletionIntent({ name: cluster, leaving, readyForMs: !c.ready ? 0 : c.justReady ? 0 : Infinity, accepted: true }, this.binding(t), template, SETTLE_MS);
  }

  /** The cluster's agent stream: a new one says Hello; the hub sends what the binding places and the removals it judges. */
  private stream(cluster: string): void {
    const c = this.clusters.get(cluster) as ClusterState;
    const connected = c.ready && !c.gone && this.registration.get(cluster) === c.obj.metadata.uid;
    if (!connected) return;
    const records = this.records.get(cluster) as Map<string, AppliedRecord>;
    const members = this.members.get(cluster) as Map<string, MemberObject>;
    const current = this.registration.get(cluster);
    const placed = new Set(c.unjoined || c.obj.metadata.deletionTimestamp !== undefined ? [] : [...this.bindings].filter(([t, b]) => this.templates.has(t) && b.clusters.includes(cluster)).map(([t]) => t));
    let session = this.sessions.get(cluster);
    const before = this.sent.get(cluster) ?? new Set<string>();
    if (session === undefined) {
      // Hello: the records' Works; those of an earlier registration that the placement does not give this one now.
      session = new OutboundDeletions({ cluster, intent: (key) => this.intent(cluster, key), budget: { percent: 50, min: 2, windowMs: 60_000 }, onHeld: () => this.held++, now: () => 0 });
      for (const key of records.keys()) session.holding(key);
      const earlier = [...records.values()].filter((r) => r.registration !== undefined && r.registration !== current && !placed.has(r.key.split("/").at(-1) as string));
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
      this.applyWork(cluster, t, records, members);
    }
    this.sent.set(cluster, placed);
    for (const key of [...records.keys()]) {
      const t = key.split("/").at(-1) as string;
      if (placed.has(t)) continue;
      const intent = session.deleteFor(key);
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
    if (live !== undefined && live.labels[LABELS.work] !== label) return; // someone else's: AlreadyExists
    if (live === undefined) {
      live = { name: t, uid: this.uid("obj"), labels: { [LABELS.work]: label }, annotations: { [WORK_KEY_ANNOTATION]: key } };
      members.set(t, live);
    }
    this.made.set(live.uid, { cluster, template: t, registration: this.registration.get(cluster) ?? "" });
    const resource: AppliedResource = { apiVersion: "v1", kind: "ConfigMap", namespace: NS, name: t, ...(this.uids ? { uid: live.uid } : {}) };
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

  /** The agent removes a Work: each recorded object as its judge says, then forgets the record (or keeps it while something is kept). */
  private removeWork(cluster: string, key: string, intent: Intent, records: Map<string, AppliedRecord>, members: Map<string, MemberObject>): void {
    const record = records.get(key);
    if (record === undefined) return;
    const label = workKeyLabelValue(key);
    for (const r of record.resources) {
      const o = members.get(r.name);
      const live = o === undefined ? undefined : asKube(o);
      // Preserved: whichever object carries the Work's label stays, released (member-deletion.ts releaseIfOurs).
      if (intent.preserve) {
        if (o !== undefined && isOurs(live, label)) members.set(o.name, { ...o, labels: {}, annotations: {} });
        continue;
      }
      const verdict = judgeMemberDeletion({ live, recorded: r, label, record: record.resources });
      // Not the object applied: kept, and released so that no orphan scan takes it for the Work's.
      if (!verdict.delete && verdict.keep === "replaced" && o !== undefined) members.set(o.name, { ...o, labels: {}, annotations: {} });
      if (!verdict.delete || o === undefined) continue;
      members.delete(o.name);
      this.deletions++;
      this.judge(cluster, o, intent.reason);
    }
    records.delete(key);
  }

  /** The oracle, apart from the code under test: was this deletion meant? */
  private judge(cluster: string, o: MemberObject, reason: string): void {
    const made = this.made.get(o.uid);
    const at = `${reason}: ${cluster}/${o.name} (${o.uid})`;
    if (made === undefined || made.cluster !== cluster) {
      this.violations.push(`${at}: not an object Flotilla applied there`);
      return;
    }
    if (this.decided.get(cluster) === "approve") return; // a person approved what was held
    if (!this.templates.has(made.template)) return; // the user deleted the template
    const c = this.clusters.get(cluster) as ClusterState;
    if (c.unjoined) return; // the user unjoined the cluster (not by force)
    // The user's placement as the user set it: the policy that claims the template, over the labels
    // the admin gave the registration the object was given under (a label lost to a new
    // registration is no intent); with no claim, what the last claim selected (a lost claim is no
    // intent either).
    const policy = this.claim.get(made.template);
    const wanted = policy === undefined ? this.frozen.get(made.template)?.has(cluster) !== false : selects(policy, cluster, this.adminEnv.get(made.registration));
    if (wanted) this.violations.push(`${at}: the user's policy still places its template there`);
  }
}

/** Whether a policy of the model (cluster names, or an env label) selects a cluster with that env. */
function selects(policy: PropagationPolicy, cluster: string, env: string | undefined): boolean {
  const affinity = policy.spec.placement?.clusterAffinity;
  return affinity?.clusterNames !== undefined ? affinity.clusterNames.includes(cluster) : env !== undefined && affinity?.labelSelector?.matchLabels?.env === env;
}

function asKube(o: MemberObject): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: o.name, namespace: NS, uid: o.uid, labels: o.labels, annotations: o.annotations } };
}
