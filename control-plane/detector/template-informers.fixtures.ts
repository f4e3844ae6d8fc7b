// A stand-in for the template informers, over a fixed set of templates.
import type { KubeObject } from "../../shared/api/types.ts";
import { templateKey, type WorkRef, workKey } from "../../shared/work-key.ts";
import type { KindRef, TemplateInformers } from "./template-informers.ts";

/** Template informers over a fixed set of templates, every kind watched. */
export function fakeTemplates(templates: KubeObject[]): TemplateInformers {
  const byKey = new Map(templates.map((t) => [templateKey(t), t]));
  const fake = {
    ensure: async () => {},
    unresolvedKinds: () => [],
    synced: true,
    get: (ref: WorkRef) => byKey.get(workKey(ref)),
    watching: () => true,
    kinds: () => [...new Map(templates.map((t) => [`${t.apiVersion}|${t.kind}`, { apiVersion: t.apiVersion, kind: t.kind }])).values()],
    list: (k: KindRef) => templates.filter((t) => t.apiVersion === k.apiVersion && t.kind === k.kind),
    resource: () => undefined,
    stop: () => {},
  };
  return fake as unknown as TemplateInformers;
}
