// The hub part: the AgentHub service on every replica. What agents send becomes events for the
// other parts; the hub imports none of them.
import { AgentHubServiceEncodedOnce } from "./encoded-messages.ts";
import { type Cluster, LABELS } from "../../shared/api/types.ts";
import { counter, counterOf, gaugeOf } from "../../shared/metrics.ts";
import { parseWorkKey, type WorkRef } from "../../shared/work-key.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { clusterReady, readySince } from "../../shared/cluster-ready.ts";
import { ClusterTimers } from "./cluster-timers.ts";
import { judgedLeaving } from "../../shared/cluster-unjoin.ts";
import { DEPENDENT_RECHECK_MS, deletionIntent, READY_SETTLE_MS, type TemplateKnowledge, templateDeletionDecided } from "./deletion-intent.ts";
import { Hub } from "./hub.ts";
import { KeptAbsences } from "./kept-absences.ts";
import { RequiresIndex } from "./requires-index.ts";

export interface HubPart extends Part {
  hub: Hub;
}

const heldTotal = counter("flotilla_deletions_held_total", "Deletions the blast-radius brake held, by cluster.", ["cluster"]);

/** The cluster's decision annotations, as one comparable value. */
function decisionsOf(c: Cluster): string {
  const a = c.metadata.annotations ?? {};
  return JSON.stringify([a[LABELS.deletionsApproved] ?? "", a[LABELS.deletionsRejected] ?? ""]);
}

export function startHub(ctx: ControlPlaneContext): HubPart {
  const { caches, templates, events } = ctx;
  const settleMs = ctx.opts.clusterReadySettleMs ?? READY_SETTLE_MS;
  // Absences kept while a cluster was not Ready (or just Ready again) are judged again once it has settled.
  const rechecks = new ClusterTimers((cluster) => hub.session(cluster)?.recheckAbsent());
  const waitRechecks = new ClusterTimers((cluster) => hub.session(cluster)?.recheckWaiting());
  const knowledgeOf = (ref: WorkRef): TemplateKnowledge => (templates.watching(ref) ? { known: true, template: templates.get(ref) } : { known: false });
  // Every absence the judge keeps is judged again once its key's state can decide it (kept-absences.ts).
  const kept = new KeptAbsences((cluster, key) => hub.session(cluster)?.recheckAbsent([key])).follow({
    bindingsAhead: caches.bindingsAhead,
    bindings: [caches.bindings, caches.clusterBindings],
    onTemplateChanged: (listener) => events.on("templateChanged", listener),
    decides: (key) => {
      try {
        const ref = parseWorkKey(key);
        return templateDeletionDecided(caches.bindingOf(ref), knowledgeOf(ref));
      } catch {
        return false;
      }
    },
  });
  // Which workloads require a template (their bindings say so under propagateDeps): the judge's dependents.
  const requires = new RequiresIndex();
  caches.bindings.on({ add: (b) => requires.set(b), update: (b) => requires.set(b), delete: (b) => requires.delete(b) });
  // (Also once an admin accepts it: the scheduler places it first, then its absences are judged.)
  caches.onClusterShapeChange(
    (c) => `${clusterReady(c)}/${c.spec?.hubAcceptsClient === true}`,
    (name, _before, after) => {
      if (after !== undefined && clusterReady(after)) rechecks.after(name, settleMs);
    },
  );
  // A person's answer to the held deletions of a cluster: a new value of its annotation.
  const decisions = new Map<string, string>();
  caches.clusters.on({
    add: (c) => decisions.set(c.metadata.name ?? "", decisionsOf(c)),
    update: (c) => {
      const name = c.metadata.name ?? "";
      const now = decisionsOf(c);
      const before = decisions.get(name);
      decisions.set(name, now);
      if (before === undefined || before === now) return;
      const [approvedBefore, rejectedBefore] = JSON.parse(before) as [string, string];
      const [approved, rejected] = JSON.parse(now) as [string, string];
      if (rejected !== rejectedBefore && rejected !== "") hub.session(name)?.decide("reject");
      if (approved !== approvedBefore && approved !== "") hub.session(name)?.decide("approve");
    },
    delete: (c) => decisions.delete(c.metadata.name ?? ""),
  });
  // What the informers say of a Work the store lacks; a key that does not parse is kept.
  const intent = (cluster: string, key: string) => {
    // A Work no binding renders (a FederatedResourceQuota's) is judged by its source.
    const source = ctx.works.sourceOf(key);
    if (source !== undefined) return source.absenceIntent(cluster, key);
    let ref: WorkRef;
    try {
      ref = parseWorkKey(key);
    } catch {
      return undefined;
    }
    const c = caches.clusters.get(cluster);
    const leaving = judgedLeaving(c);
    if (c === undefined || leaving === undefined) return undefined;
    const since = readySince(c);
    const readyForMs = !clusterReady(c) ? 0 : since === undefined ? Infinity : Math.max(0, Date.now() - since);
    const template = knowledgeOf(ref);
    const accepted = !ctx.opts.requireAcceptance || c.spec?.hubAcceptsClient === true;
    // A binding being written ahead of its watch event has decided nothing the informer shows yet: keep (judged again when it lands).
    if (caches.bindingsAhead.get(key) !== undefined) return kept.keep(cluster, key);
    const binding = caches.bindingOf(ref);
    // The workloads that may need it: those its requiredBy names, and those whose binding says they require it (propagateDeps).
    const named = (binding?.spec.requiredBy ?? []).map((r) => `${ref.namespace ?? ""}/${r.name}`);
    const needing = () => [...new Set([...named, ...requires.requiring(key)])].flatMap((id) => caches.bindings.get(id.slice(id.indexOf("/") + 1), id.slice(0, id.indexOf("/"))) ?? []);
    const runs = (workKey: string) => hub.session(cluster)?.holdsWork(workKey) === true;
    const judged = deletionIntent({ name: cluster, leaving, readyForMs, accepted }, binding, template, settleMs, { needing, runs });
    if (judged === undefined && readyForMs > 0 && readyForMs < settleMs) rechecks.after(cluster, settleMs - readyForMs);
    // Waiting for a workload to go first: judged again when its removal is sent, and on a timer whatever happens meanwhile.
    if (judged?.waitsFor !== undefined) waitRechecks.after(cluster, DEPENDENT_RECHECK_MS);
    if (judged === undefined) kept.keep(cluster, key);
    return judged;
  };
  // Only reports this control plane accepted made these records (DESIGN §7: an agent speaks for what it was sent).
  const recorded = (cluster: string, key: string): boolean => {
    if (ctx.statuses.get(key).has(cluster)) return true;
    try {
      return caches.bindingEntries.of(caches.bindingOf(parseWorkKey(key))).some((i) => i.clusterName === cluster);
    } catch {
      return false;
    }
  };
  // Counted at most once a second: every SyncDone asks (the spread told each agent).
  let clusterCount = { at: 0, n: 0 };
  const hub = new Hub({
    works: ctx.works,
    log: ctx.log,
    rate: ctx.opts.agentMessageRate,
    ...(ctx.opts.maxClusterNodes === undefined ? {} : { maxClusterNodes: ctx.opts.maxClusterNodes }),
    ...(ctx.opts.memberApi === undefined ? {} : { memberApiMaxRequests: ctx.opts.memberApi.maxRequestsPerCluster }),
    ...(ctx.opts.agentAdmissions === undefined ? {} : { admission: ctx.opts.agentAdmissions }),
    clusterCount: () => (clusterCount.at + 1000 > Date.now() ? clusterCount : (clusterCount = { at: Date.now(), n: caches.clusters.list().length })).n,
    reconnectSpreadCapMs: Math.floor(ctx.opts.clusterFailureMs / 2),
    clusterNamed: (c) => caches.clusters.get(c),
    registrar: ctx.registrar,
    allowCertsWithoutUid: ctx.opts.allowAgentCertsWithoutUid,
    events: {
      status: (cluster, s) => events.emit("agentStatus", cluster, s),
      heartbeat: (cluster, hb, problems) => events.emit("heartbeat", cluster, hb, problems),
      recorded,
      deletionIntent: intent,
      connected: (cluster, up) => {
        // Its next Hello judges afresh every Work its agent holds.
        if (!up) kept.forgetCluster(cluster);
        events.emit("agentStreamChanged", cluster);
      },
      holds: (cluster, keys) => events.emit("agentHolds", cluster, keys),
      deletionHeld: (cluster, key) => {
        heldTotal.inc({ cluster });
        events.emit("deletionHeld", cluster, key);
      },
      workloadMetrics: (cluster, report) => events.emit("workloadMetrics", cluster, report),
      serviceExport: (cluster, report) => events.emit("serviceExport", cluster, report),
      serviceExportsSynced: (cluster, exports) => events.emit("serviceExportsSynced", cluster, exports),
    },
    ...(ctx.opts.deletionBudget ? { deletionBudget: ctx.opts.deletionBudget } : {}),
    customizations: () => ctx.agentCustomizations.message,
    metricsWanted: (cluster) => ctx.metricsWanted.get(cluster) ?? { contentHash: "", workloads: [] },
  });
  events.on("agentCustomizationsChanged", () => hub.customizationsChanged());
  events.on("metricsWantedChanged", (cluster) => hub.metricsWantedChanged(cluster));
  gaugeOf("flotilla_deletions_held", "Deletions the blast-radius brake holds for the cluster, waiting for flotillactl deletions approve|reject.", () => hub.connectedClusters().map((c) => [{ cluster: c }, hub.session(c)?.deletions.heldCount ?? 0] as const), ["cluster"]);
  counterOf("flotilla_agent_admissions_refused_total", "New agent streams this replica's admission gate refused with a retry-after (--max-agent-admissions-per-second).", () => hub.refusedAdmissions);
  gaugeOf("flotilla_agent_admission_backlog_seconds", "How long until the reconnect storm this replica is in has come back: every agent the admission gate refused is due back, and the agents lost here, when more than a burst, are admitted again at its rate.", () => hub.admissionBacklogMs() / 1000);
  counterOf("flotilla_agents_sent_elsewhere_total", "New agent streams refused because this replica held more than its share of the fleet (the agent reconnects on a new connection).", () => hub.sentElsewhere);
  gaugeOf("flotilla_connected_agents", "Agents streaming to this replica.", () => hub.connectedClusters().length);
  const sessionStat = (stat: "upserts" | "manifestBytes" | "statuses" | "customizations" | "metricsWanted" | "workloadMetrics") => () => hub.connectedClusters().map((c) => [{ cluster: c }, hub.session(c)?.stats[stat] ?? 0] as const);
  counterOf("flotilla_stream_upserts_total", "WorkUpserts sent on the cluster's current stream.", sessionStat("upserts"), ["cluster"]);
  counterOf("flotilla_stream_manifest_bytes_total", "Manifest bytes sent on the cluster's current stream.", sessionStat("manifestBytes"), ["cluster"]);
  counterOf("flotilla_stream_statuses_total", "WorkStatuses taken on the cluster's current stream.", sessionStat("statuses"), ["cluster"]);
  counterOf("flotilla_stream_customizations_total", "Interpreter customization sets sent on the cluster's current stream.", sessionStat("customizations"), ["cluster"]);
  counterOf("flotilla_stream_metrics_wanted_total", "MetricsWanted lists sent on the cluster's current stream.", sessionStat("metricsWanted"), ["cluster"]);
  counterOf("flotilla_stream_workload_metrics_total", "Workload summaries taken on the cluster's current stream.", sessionStat("workloadMetrics"), ["cluster"]);
  return {
    hub,
    services: [{ definition: AgentHubServiceEncodedOnce, implementation: hub.service() }],
    // Agents reconnect to another replica, or to this one when it is back.
    stop: () => {
      rechecks.clear();
      waitRechecks.clear();
      hub.closeAll();
    },
  };
}
