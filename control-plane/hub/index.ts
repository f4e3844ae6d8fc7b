// The hub part: the AgentHub service on every replica. What agents send becomes events for the
// other parts; the hub imports none of them.
import { AgentHubService } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { counterOf, gaugeOf } from "../../shared/metrics.ts";
import { parseWorkKey, type WorkRef } from "../../shared/work-key.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { clusterReady, readySince } from "../../shared/cluster-ready.ts";
import { ClusterTimers } from "./cluster-timers.ts";
import { deletionIntent, READY_SETTLE_MS, type TemplateKnowledge } from "./deletion-intent.ts";
import { Hub } from "./hub.ts";

export interface HubPart extends Part {
  hub: Hub;
}

export function startHub(ctx: ControlPlaneContext): HubPart {
  const { caches, templates, events } = ctx;
  // Absences kept while a cluster was not Ready (or just Ready again) are judged again once it has settled.
  const rechecks = new ClusterTimers((cluster) => hub.session(cluster)?.recheckAbsent());
  caches.onClusterShapeChange(
    (c) => String(clusterReady(c)),
    (name, _before, after) => {
      if (after !== undefined && clusterReady(after)) rechecks.after(name, READY_SETTLE_MS);
    },
  );
  // What the informers say of a Work the store lacks; a key that does not parse is kept.
  const intent = (cluster: string, key: string) => {
    let ref: WorkRef;
    try {
      ref = parseWorkKey(key);
    } catch {
      return undefined;
    }
    const c = caches.clusters.get(cluster);
    const since = c === undefined ? undefined : readySince(c);
    const readyForMs = c === undefined || !clusterReady(c) ? 0 : since === undefined ? Infinity : Math.max(0, Date.now() - since);
    const template: TemplateKnowledge = templates.watching(ref) ? { known: true, template: templates.get(ref) } : { known: false };
    const judged = deletionIntent({ name: cluster, leaving: c === undefined || c.metadata.deletionTimestamp !== undefined, readyForMs }, caches.bindingOf(ref), template);
    if (judged === undefined && readyForMs > 0 && readyForMs < READY_SETTLE_MS) rechecks.after(cluster, READY_SETTLE_MS - readyForMs);
    return judged;
  };
  // Only reports this control plane accepted made these records (DESIGN §7: an agent speaks for what it was sent).
  const recorded = (cluster: string, key: string): boolean => {
    if (ctx.statuses.get(key).has(cluster)) return true;
    try {
      return caches.bindingOf(parseWorkKey(key))?.status?.aggregatedStatus?.some((i) => i.clusterName === cluster) === true;
    } catch {
      return false;
    }
  };
  const hub = new Hub({
    works: ctx.works,
    log: ctx.log,
    rate: ctx.opts.agentMessageRate,
    clusterNamed: (c) => caches.clusters.get(c),
    registrar: ctx.registrar,
    allowCertsWithoutUid: ctx.opts.allowAgentCertsWithoutUid,
    events: {
      status: (cluster, s) => events.emit("agentStatus", cluster, s),
      heartbeat: (cluster, hb, problems) => events.emit("heartbeat", cluster, hb, problems),
      recorded,
      deletionIntent: intent,
      connected: (cluster) => events.emit("agentStreamChanged", cluster),
      holds: (cluster, keys) => events.emit("agentHolds", cluster, keys),
    },
  });
  gaugeOf("flotilla_connected_agents", "Agents streaming to this replica.", () => hub.connectedClusters().length);
  const sessionStat = (stat: "upserts" | "manifestBytes" | "statuses") => () => hub.connectedClusters().map((c) => [{ cluster: c }, hub.session(c)?.stats[stat] ?? 0] as const);
  counterOf("flotilla_stream_upserts_total", "WorkUpserts sent on the cluster's current stream.", sessionStat("upserts"), ["cluster"]);
  counterOf("flotilla_stream_manifest_bytes_total", "Manifest bytes sent on the cluster's current stream.", sessionStat("manifestBytes"), ["cluster"]);
  counterOf("flotilla_stream_statuses_total", "WorkStatuses taken on the cluster's current stream.", sessionStat("statuses"), ["cluster"]);
  return {
    hub,
    services: [{ definition: AgentHubService, implementation: hub.service() }],
    // Agents reconnect to another replica, or to this one when it is back.
    stop: () => {
      rechecks.clear();
      hub.closeAll();
    },
  };
}
