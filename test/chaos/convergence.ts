// The end-of-run check: every member against what the control plane renders for it.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { keyedRedaction, secretDigestKey } from "../../control-plane/admin/secret-digest.ts";
import type { KubeConfig } from "@kubernetes/client-node";
import { containsFields } from "../../agent/apply/apply-decision.ts";
import { call, connect } from "../../bin/ctl/connection.ts";
import { type KubeObject, LABELS } from "../../shared/api/types.ts";
import { redactSecret } from "../../shared/secret-redaction.ts";
import { collectionPath, KubeRest } from "../../shared/kube-rest.ts";
import { type ChurnModel, NAMESPACE, templateManifest, wanted } from "./churn-model.ts";
import { WATCHED } from "./member-watch.ts";
import { hpaTargets } from "./member-hpa.ts";
import { USER_COPY } from "./object-faults.ts";

export interface Finding {
  member: string;
  id: string;
  detail?: string;
}

export interface MemberCheck {
  missing: Finding[];
  stray: Finding[];
  mismatched: Finding[];
}

type Live = { metadata?: { name?: string }; spec?: { replicas?: number } } & Record<string, unknown>;

/**
 * Pure: compares what each member holds (template id → object) with what the model wants there
 * and what the control plane renders; Deployments' replicas must also add up to the template's.
 * A Deployment a member HPA holds (`hpaHeld`: "member id") has the member's replicas (DESIGN §11):
 * its spec.replicas is left out of the render's comparison, and its template's sum is not checked.
 */
export function compareFleet(
  model: ChurnModel,
  live: Map<string, Map<string, Live>>,
  rendered: Map<string, unknown>,
  bindings: { name: string; template: string }[] = [],
  /** How a live Secret's values are shown to compare with the render (the Admin API's keyed digests). */
  redact: (o: KubeObject) => KubeObject = redactSecret,
  hpaHeld: ReadonlySet<string> = new Set(),
): MemberCheck {
  const want = wanted(model);
  const out: MemberCheck = { missing: [], stray: [], mismatched: [] };
  // A binding outlives its template only while its removal runs; one held for good is a leak.
  for (const b of bindings) if (!model.templates.has(b.template)) out.stray.push({ member: "(control)", id: `ResourceBinding/${b.name}`, detail: `its template ${b.template} is gone` });
  for (const [member, objects] of live) {
    for (const [id, clusters] of want) {
      if (!clusters.has(member)) continue;
      const have = objects.get(id);
      if (have === undefined) {
        out.missing.push({ member, id });
        continue;
      }
      const r = hpaHeld.has(`${member} ${id}`) ? withoutReplicas(rendered.get(`${member} ${id}`)) : rendered.get(`${member} ${id}`);
      if (r === undefined) out.mismatched.push({ member, id, detail: "the control plane renders nothing for it" });
      // The Admin API shows a Secret's values as digests (never the values); compare digests.
      else if (!containsFields(id.startsWith("Secret/") ? redact(have as unknown as KubeObject) : have, r)) out.mismatched.push({ member, id, detail: "differs from the control plane's render" });
    }
    for (const id of objects.keys()) if (!want.get(id)?.has(member)) out.stray.push({ member, id });
  }
  for (const [id, t] of model.templates) {
    // A template wanted nowhere (the label group with no Cluster labelled) has no division to add up; a copy left is stray.
    if (t.kind !== "Deployment" || (want.get(id)?.size ?? 0) === 0 || [...live.keys()].some((member) => hpaHeld.has(`${member} ${id}`))) continue;
    const sum = [...live.values()].reduce((n, objects) => n + (objects.get(id)?.spec?.replicas ?? 0), 0);
    if (sum !== t.replicas) out.mismatched.push({ member: "(all)", id, detail: `replicas add up to ${sum}, the template has ${t.replicas}` });
  }
  return out;
}

function withoutReplicas(rendered: unknown): unknown {
  const r = rendered as { spec?: Record<string, unknown> } | undefined;
  if (r?.spec === undefined) return rendered;
  const { replicas: _, ...spec } = r.spec;
  return { ...r, spec };
}

/** Reads every member (and the Deployments their HPAs hold) and the control plane's renders, then compares. */
export async function checkFleet(model: ChurnModel, members: { name: string; kc: KubeConfig }[], control: KubeConfig, stateDir: string): Promise<MemberCheck> {
  const controlRest = new KubeRest(control);
  const bindingList = await controlRest
    .request<{ items?: { metadata: { name: string }; spec: { resource: { kind: string; name: string } } }[] }>("GET", `/apis/flotilla.dev/v1alpha1/namespaces/${NAMESPACE}/resourcebindings`, { timeoutMs: 10_000 })
    .finally(() => controlRest.close());
  const bindings = (bindingList.items ?? []).map((b) => ({ name: b.metadata.name, template: `${b.spec.resource.kind}/${b.spec.resource.name}` }));
  const live = new Map<string, Map<string, Live>>();
  const hpaHeld = new Set<string>();
  for (const m of members) {
    const rest = new KubeRest(m.kc);
    const objects = new Map<string, Live>();
    try {
      for (const name of await hpaTargets(rest).catch((): string[] => [])) hpaHeld.add(`${m.name} Deployment/${name}`);
      for (const r of WATCHED) {
        const list = await rest.request<{ items?: Live[] }>("GET", collectionPath(r, NAMESPACE), { query: { labelSelector: LABELS.work }, timeoutMs: 10_000 }).catch(() => ({ items: [] as Live[] }));
        // A list leaves apiVersion and kind off its items; the render has them.
        // A user's copy carries Flotilla's label but is no template's (chaos.ts checks it stays).
        for (const o of list.items ?? []) if (!(o.metadata?.name ?? "").includes(USER_COPY)) objects.set(`${r.kind}/${o.metadata?.name ?? ""}`, { ...o, apiVersion: r.apiVersion, kind: r.kind });
      }
    } finally {
      rest.close();
    }
    live.set(m.name, objects);
  }
  const rendered = new Map<string, unknown>();
  const { client } = await connect({ "state-dir": stateDir });
  try {
    const want = wanted(model);
    for (const [id, t] of model.templates) {
      const manifest = templateManifest(t) as { apiVersion: string; kind: string };
      for (const member of want.get(id) ?? []) {
        if (!live.get(member)?.has(id)) continue;
        const res = await call(client, client.render, { template: { apiVersion: manifest.apiVersion, kind: manifest.kind, namespace: NAMESPACE, name: t.name }, cluster: member }, 10_000).catch(() => undefined);
        const first = res?.manifests[0];
        if (first !== undefined) rendered.set(`${member} ${id}`, JSON.parse(Buffer.from(first).toString("utf8")));
      }
    }
  } finally {
    client.close();
  }
  // The Admin API shows Secret values as digests keyed by the hub's TLS key: the live ones the same way.
  const key = secretDigestKey(await readFile(join(stateDir, "flotilla-certs", "hub.key"), "utf8"));
  return compareFleet(model, live, rendered, bindings, (o) => keyedRedaction(o, key), hpaHeld);
}
