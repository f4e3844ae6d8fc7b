// One cluster's section of an explanation: the placement verdict (the scheduler's rules, one at
// a time), the replicas, the Work rendered, shipped, applied, its health, the last error and its
// time, the cluster's readiness and its place in a rollout. Pure.
import type { AggregatedStatusItem, Cluster, PropagationPolicy, ResourceBinding } from "../../shared/api/types.ts";
import { clusterVerdicts } from "../scheduling/cluster-verdicts.ts";
import type { ClusterExplanation, ExplainFacts } from "./explanation.ts";
import { reasonSentence } from "./reasons.ts";

/** The section of one cluster. */
export function explainCluster(c: Cluster, f: ExplainFacts, placement: { policy?: PropagationPolicy; binding: ResourceBinding | undefined }): ClusterExplanation {
  const name = c.metadata.name ?? "";
  const binding = placement.binding;
  const targets = binding?.spec.clusters ?? [];
  const verdict = verdictOf(c, f, placement.policy, binding);
  const readyCondition = c.status?.conditions?.find((x) => x.type === "Ready");
  const ready = {
    status: readyCondition?.status ?? "Unknown",
    ...(readyCondition?.reason ? { reason: readyCondition.reason } : {}),
    ...(readyCondition?.message ? { message: readyCondition.message } : {}),
    ...(c.status?.lastHeartbeatTime ? { lastHeartbeatTime: c.status.lastHeartbeatTime } : {}),
  };
  const item = binding?.status?.aggregatedStatus?.find((i) => i.clusterName === name);
  const work = workOf(f, name, item);
  const total = targets.some((t) => t.replicas !== undefined) ? (binding?.spec.replicas ?? targets.reduce((n, t) => n + (t.replicas ?? 0), 0)) : undefined;
  const state = binding?.status?.rollout?.clusters.find((x) => x.name === name);
  const rollout = state === undefined ? undefined : { phase: state.phase, revision: state.revision, since: state.since, ...(state.message ? { message: state.message } : {}) };

  const sentences: string[] = [];
  if (verdict.placed) {
    const parts = [`selected by ${verdict.selectedBy}`];
    if (verdict.replicas !== undefined) parts.push(`given ${verdict.replicas} of ${total ?? verdict.replicas} replicas`);
    parts.push(workPhrase(work));
    if (work?.health !== undefined && work.applied === true) parts.push(work.health.toLowerCase());
    sentences.push(`${name}: ${parts.join("; ")}.`);
  } else {
    sentences.push(`${name}: filtered out: ${verdict.detail}.`);
    if (item?.reason) sentences.push(`${name} still holds a copy: ${item.reason}: ${reasonSentence(item.reason) ?? ""} (${item.message ?? ""}).`);
  }
  if (work?.reason && (verdict.placed || !item?.reason)) {
    const when = work.at === undefined ? "" : ` at ${work.at} (${work.agoSeconds}s ago)`;
    sentences.push(`${name}: last error ${work.reason}${work.object ? ` on ${work.object}` : ""}${when}: ${work.meaning ?? ""} (${work.message ?? ""}).`);
  }
  for (const m of work?.failedManifests ?? []) sentences.push(`${name}: ${m.object}: ${m.reason}: ${m.message}.`);
  if (ready.status !== "True") sentences.push(`${name}: cluster not Ready (${ready.reason ?? "no condition"}${ready.message ? `: ${ready.message}` : ""}${ready.lastHeartbeatTime ? `; last heartbeat ${ready.lastHeartbeatTime}` : ""}).`);
  if (rollout !== undefined) sentences.push(`${name}: rollout ${rollout.phase} on revision ${rollout.revision} since ${rollout.since}${rollout.message ? ` (${rollout.message})` : ""}.`);
  return { cluster: name, ready, verdict, ...(total === undefined ? {} : { totalReplicas: total }), ...(work === undefined ? {} : { work }), ...(rollout === undefined ? {} : { rollout }), sentences };
}

function verdictOf(c: Cluster, f: ExplainFacts, policy: PropagationPolicy | undefined, binding: ResourceBinding | undefined): ClusterExplanation["verdict"] {
  const name = c.metadata.name ?? "";
  const targets = binding?.spec.clusters ?? [];
  if (policy !== undefined) {
    const affinityName = binding?.status?.schedulerObservedAffinityName ?? f.outcome?.affinityName;
    const [v] = clusterVerdicts({
      policy,
      clusters: [c],
      targets,
      ...(affinityName === undefined ? {} : { affinityName }),
      ...(f.requireAcceptance === undefined ? {} : { requireAcceptance: f.requireAcceptance }),
      ...(f.perReplica === undefined ? {} : { perReplica: f.perReplica }),
    });
    if (v !== undefined) return v;
  }
  const target = targets.find((t) => t.name === name);
  const dependency = (binding?.spec.requiredBy ?? []).length > 0;
  if (target !== undefined) return { cluster: name, placed: true, ...(target.replicas === undefined ? {} : { replicas: target.replicas }), selectedBy: dependency ? "the workloads that need it (propagateDeps)" : "its last placement (no policy claims it now)" };
  const detail = f.template === undefined ? "the template does not exist" : dependency ? "no workload that needs it runs here" : "no policy claims the template";
  return { cluster: name, placed: false, rule: "noPolicy", detail };
}

function workOf(f: ExplainFacts, cluster: string, item: AggregatedStatusItem | undefined): ClusterExplanation["work"] {
  const facts = f.perCluster[cluster];
  const w = facts?.work;
  const report = facts?.report;
  if (w === undefined && facts?.renderError === undefined && report === undefined && item === undefined) return undefined;
  const observedHash = report?.observedHash || item?.observedHash || undefined;
  const shipped = w !== undefined && observedHash === w.hash;
  const failing = report?.manifests.find((m) => m.reason !== "");
  const reason = report?.reason || failing?.reason || item?.reason || facts?.renderError?.split(":")[0] || undefined;
  const message = report?.message || failing?.message || item?.message || facts?.renderError || undefined;
  const applied = shipped ? (report?.applied ?? item?.applied) : false;
  const meaning = reason === undefined ? undefined : reasonSentence(reason);
  const failedManifests = (report?.manifests ?? []).filter((m) => m.reason !== "" && m !== failing);
  return {
    rendered: w !== undefined,
    ...(w === undefined ? {} : { hash: w.hash, ...(w.revision === undefined ? {} : { revision: w.revision }) }),
    ...(facts?.renderError === undefined ? {} : { renderError: facts.renderError }),
    shipped,
    ...(observedHash === undefined ? {} : { observedHash }),
    ...(applied === undefined ? {} : { applied }),
    ...(item?.health === undefined ? {} : { health: item.health }),
    ...(reason === undefined ? {} : { reason }),
    ...(failing !== undefined && !report?.reason ? { object: failing.object } : {}),
    ...(meaning === undefined ? {} : { meaning }),
    ...(message === undefined ? {} : { message }),
    ...(report?.at === undefined ? {} : { at: new Date(report.at).toISOString(), agoSeconds: Math.max(0, Math.round((f.now - report.at) / 1000)) }),
    ...(failedManifests.length > 0 ? { failedManifests } : {}),
  };
}

function workPhrase(work: ClusterExplanation["work"]): string {
  if (work === undefined) return "no Work rendered yet";
  if (work.renderError !== undefined) return `Work not rendered (${work.renderError})`;
  if (!work.rendered) return "no Work rendered yet";
  const rendered = `Work rendered (hash ${short(work.hash)}${work.revision ? `, revision ${work.revision}` : ""})`;
  if (!work.shipped) return `${rendered}, not yet acknowledged by the agent${work.observedHash ? ` (it reports hash ${short(work.observedHash)})` : ""}`;
  const ago = work.agoSeconds === undefined ? "" : ` ${work.agoSeconds}s ago`;
  if (work.applied === true) return `${rendered}, shipped, applied${ago}`;
  return `${rendered}, shipped, not applied${work.reason ? ` (${work.reason})` : ""}`;
}

function short(hash: string | undefined): string {
  return (hash ?? "").slice(0, 12);
}
