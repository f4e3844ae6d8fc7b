// The hub part: the AgentHub service on every replica. What agents send becomes events for the
// other parts; the hub imports none of them.
import { AgentHubService } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { counterOf, gaugeOf } from "../../shared/metrics.ts";
import { parseWorkKey, type WorkRef } from "../../shared/work-key.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { deletionIntent, type TemplateKnowledge } from "./deletion-intent.ts";
import { Hub } from "./hub.ts";

export interface HubPart extends Part {
  hub: Hub;
}

export function startHub(ctx: ControlPlaneContext): HubPart {
  const { caches, templates, events } = ctx;
  // What the informers say of a Work the store lacks; a key that does not parse is kept.
  const intent = (cluster: string, key: string) => {
    let ref: WorkRef;
    try {
      ref = parseWorkKey(key);
    } catch {
      return undefined;
    }
    const c = caches.clusters.get(cluster);
    const template: TemplateKnowledge = templates.watching(ref) ? { known: true, template: templates.get(ref) } : { known: false };
    return deletionIntent({ name: cluster, leaving: c === undefined || c.metadata.deletionTimestamp !== undefined }, caches.bindingOf(ref), template);
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
    stop: () => hub.closeAll(),
  };
}
