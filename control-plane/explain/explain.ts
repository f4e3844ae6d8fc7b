// The I/O shell of explain (issue 24): reads the facts from this replica's caches and stores
// (the policies, the binding, the clusters, the Work store, the agents' reports, the schedule
// outcome), the template from its informer (or one GET, as the Admin API's render does) and its
// Events (one list call, on demand; nothing is polled), then
// explains them (explanation.ts) and renders the text (text.ts). The Admin API's Explain call and
// the web dashboard both call `explain`, so they show the same words.
import type { CoreEvent } from "../../shared/api/core-event.ts";
import { isKubeStatus, type KubeRest } from "../../shared/kube-rest.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { workKey } from "../../shared/work-key.ts";
import type { ControlPlaneContext } from "../context.ts";
import { TemplateResolver } from "../kinds/template-resolver.ts";
import { perReplicaRequest } from "../scheduling/schedule.ts";
import { CLUSTER_SCOPED_NAMESPACE } from "../status/event-recorder.ts";
import { type ClusterFacts, type EventFact, type Explanation, explainFacts } from "./explanation.ts";
import { explanationText } from "./text.ts";

/** What to explain: a kind as kubectl names it (Kind, plural, short name, `deployments.apps`), or an exact apiVersion and Kind. */
export interface ExplainRef {
  apiVersion?: string;
  kind: string;
  namespace?: string;
  name: string;
}

// One resolver per control cluster client, so the served kinds are read once per 30 s as the Admin API's are.
const resolvers = new WeakMap<KubeRest, TemplateResolver>();

/**
 * Why a template is, or is not, in each cluster: the structured Explanation and its text. The
 * kind is resolved as the Admin API resolves it (an unknown or ambiguous kind throws an RpcError
 * INVALID_ARGUMENT; the namespace defaults to "default" for a namespaced kind). `opts.cluster`
 * keeps one cluster's section. Reads this replica's caches; never shows a template's content.
 */
export async function explain(ctx: ControlPlaneContext, ref: ExplainRef, opts: { cluster?: string } = {}): Promise<{ explanation: Explanation; text: string }> {
  let resolver = resolvers.get(ctx.rest);
  if (resolver === undefined) resolvers.set(ctx.rest, (resolver = new TemplateResolver(ctx.rest)));
  const resolved = await resolver.resolve({ apiVersion: ref.apiVersion ?? "", kind: ref.kind, namespace: ref.namespace ?? "", name: ref.name });
  const id = { apiVersion: resolved.apiVersion, kind: resolved.kind, ...(resolved.namespace ? { namespace: resolved.namespace } : {}), name: resolved.name };
  const template = ctx.templates.watching(id) ? ctx.templates.get(id) : await ctx.rest.get<KubeObject>(resolved.path).catch((err: unknown) => {
    if (isKubeStatus(err, 404)) return undefined;
    throw err;
  });
  const key = workKey(id);
  const clusters = ctx.caches.clusters.list();
  const renderErrors = ctx.works.renderErrorsOf(key);
  const reports = ctx.statuses.get(key);
  const perCluster: Record<string, ClusterFacts> = {};
  for (const c of clusters) {
    const name = c.metadata.name ?? "";
    const work = ctx.works.get(name, key);
    const report = reports.get(name);
    const at = ctx.statuses.reportedAt(key, name);
    perCluster[name] = {
      ...(work === undefined ? {} : { work: { hash: work.hash, ...(work.revision === undefined ? {} : { revision: work.revision }) } }),
      ...(renderErrors.has(name) ? { renderError: `ApplyOverridesFailed: ${renderErrors.get(name)}` } : {}),
      ...(report === undefined || report.deleted
        ? {}
        : {
            report: {
              observedHash: report.observedHash,
              applied: report.applied,
              available: report.available,
              reason: report.reason,
              message: report.message,
              ...(at === undefined ? {} : { at }),
              manifests: report.manifests.map((m) => ({ object: objectName(m.resource), reason: m.reason, message: m.message })),
            },
          }),
    };
  }
  const perReplica = template === undefined ? undefined : requestOf(ctx, template);
  const events = await eventsAbout(ctx, id);
  const outcome = ctx.outcomes.get(key);
  // Every cluster's entry, also those a large binding's status leaves out (issue 25).
  const binding = ctx.caches.bindingEntries.complete(ctx.caches.bindingOf(id));
  const explanation = explainFacts({
    ref: id,
    template,
    policies: ctx.caches.allPolicies(),
    binding,
    clusters,
    ...(outcome === undefined ? {} : { outcome }),
    perCluster,
    requireAcceptance: ctx.opts.requireAcceptance ?? false,
    ...(perReplica === undefined ? {} : { perReplica }),
    now: Date.now(),
    ...(opts.cluster ? { cluster: opts.cluster } : {}),
    ...events,
  });
  return { explanation, text: explanationText(explanation) };
}

/**
 * The Events about the template: one list call on demand, where the recorder writes them (the
 * template's namespace, or default for a cluster-scoped one). A failed read explains the rest.
 */
async function eventsAbout(ctx: ControlPlaneContext, id: { apiVersion: string; kind: string; namespace?: string; name: string }): Promise<{ events: EventFact[] } | { eventsError: string }> {
  const selector = encodeURIComponent(`involvedObject.kind=${id.kind},involvedObject.name=${id.name}`);
  try {
    const list = await ctx.rest.get<{ items: CoreEvent[] }>(`/api/v1/namespaces/${encodeURIComponent(id.namespace ?? CLUSTER_SCOPED_NAMESPACE)}/events?fieldSelector=${selector}`);
    const events = list.items
      .filter((e) => e.involvedObject?.apiVersion === undefined || e.involvedObject.apiVersion === id.apiVersion)
      .map((e) => ({
        type: e.type ?? "Normal",
        reason: e.reason ?? "",
        message: e.message ?? "",
        count: e.count ?? 1,
        lastTimestamp: e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? "",
        ...(e.source?.component || e.reportingComponent ? { component: e.source?.component || e.reportingComponent } : {}),
      }));
    return { events };
  } catch (err) {
    return { eventsError: err instanceof Error ? err.message : String(err) };
  }
}

// A customization's script may fail: capacity is then not judged.
function requestOf(ctx: ControlPlaneContext, template: KubeObject) {
  try {
    return perReplicaRequest(template, ctx.interpreters.for(template));
  } catch {
    return undefined;
  }
}

function objectName(r: { group: string; version: string; kind: string; namespace: string; name: string } | undefined): string {
  if (r === undefined) return "an object";
  return `${r.group ? `${r.group}/` : ""}${r.version} ${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name}`;
}
