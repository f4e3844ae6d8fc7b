// The leader's write of a template's .status (the fleet's sum, template-status.ts decides it).
// What it last wrote is remembered with the template's resourceVersion at the time: until the
// template's informer shows a newer version, the same patch is not written again (a reconcile that
// runs before our own write came back would otherwise write it twice; issue 42 counts every write).
import type { Logger } from "pino";
import type { ResourceBindingStatus } from "../../shared/api/types.ts";
import { canonicalJson } from "../../shared/content-hash.ts";
import type { InterpreterRegistry } from "../../shared/interpreter/registry.ts";
import { type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { parseWorkKey } from "../../shared/work-key.ts";
import type { TemplateInformers } from "../detector/template-informers.ts";
import type { WorkStore } from "../works/work-store.ts";
import { ignoreNotFound } from "./binding-finalizer.ts";
import { templateStatusPatch } from "./template-status.ts";

/** The leader's field manager for the template's .status. */
const FIELD_MANAGER = "flotilla-status-controller";

export class TemplateStatusWriter {
  /** Template status writes made (a counter for metrics). */
  writes = 0;
  private readonly last = new Map<string, { resourceVersion: string; patch: string }>();
  private readonly opts: { templates: TemplateInformers; works: WorkStore; interpreters: InterpreterRegistry; rest: KubeRest; log: Logger };

  constructor(opts: { templates: TemplateInformers; works: WorkStore; interpreters: InterpreterRegistry; rest: KubeRest; log: Logger }) {
    this.opts = opts;
  }

  /** Writes the template's .status when it differs from what the template shows (and from what was just written). */
  async write(key: string, targets: string[], items: ResourceBindingStatus["aggregatedStatus"], fleetFailure: string | undefined): Promise<void> {
    const { templates, works, interpreters, rest, log } = this.opts;
    const ref = parseWorkKey(key);
    const template = templates.get(ref);
    const resource = templates.resource(ref);
    if (template === undefined || resource === undefined) return;
    const out = templateStatusPatch({
      template,
      targets,
      items: items ?? [],
      workOf: (cluster) => works.get(cluster, key),
      interpreter: interpreters.for(template),
      ...(fleetFailure === undefined ? {} : { fleetFailure }),
    });
    if (out === undefined) return;
    if ("failed" in out) {
      log.warn({ template: key, err: out.failed }, "the kind's interpreter failed to aggregate its status; it stays as it is");
      return;
    }
    const written = { resourceVersion: template.metadata.resourceVersion ?? "", patch: canonicalJson(out.patch) };
    const last = this.last.get(key);
    if (last !== undefined && last.resourceVersion === written.resourceVersion && last.patch === written.patch) return;
    this.writes++;
    await rest.mergePatch(objectPath(resource, ref.namespace, ref.name, "status"), { status: out.patch }, FIELD_MANAGER).catch(ignoreNotFound);
    this.last.set(key, written);
  }

  forget(key: string): void {
    this.last.delete(key);
  }
}
