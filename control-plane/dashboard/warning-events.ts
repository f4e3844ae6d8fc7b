// The control cluster's Events, for the overview's recent warnings (issue 24): one watch per
// replica with the dashboard on, whatever the number of browsers; each Event is kept only as
// the few fields the overview shows.
import { Informer } from "../../shared/informer.ts";
import type { ResourceInfo } from "../../shared/kube-rest.ts";
import type { ControlPlaneContext } from "../context.ts";
import type { WarningEvent } from "./fleet-views.ts";

const EVENTS: ResourceInfo = { apiVersion: "v1", kind: "Event", plural: "events", namespaced: true };

/** What the overview reads of an Event; a Normal one keeps no text. */
export function warningFields(e: WarningEvent): WarningEvent {
  const slim = { metadata: { namespace: e.metadata.namespace, name: e.metadata.name, resourceVersion: e.metadata.resourceVersion }, type: e.type };
  if (e.type !== "Warning") return slim;
  return { ...slim, reason: e.reason, message: e.message, count: e.count, lastTimestamp: e.lastTimestamp, eventTime: e.eventTime, involvedObject: { kind: e.involvedObject?.kind, namespace: e.involvedObject?.namespace, name: e.involvedObject?.name } };
}

export function startWarningEvents(ctx: ControlPlaneContext): Informer<WarningEvent> {
  const inf = new Informer<WarningEvent>({ kc: ctx.opts.kc, rest: ctx.rest, resource: EVENTS, transform: warningFields, log: ctx.log.child({ component: "dashboard" }) });
  void inf.start();
  return inf;
}
