// A user's HorizontalPodAutoscaler in a member (issue 37): created on one of Flotilla's
// Deployments there, the Deployment scaled through its scale subresource as the HPA controller
// would, scaled again, and deleted. The HPA's range (1 to 30) holds every value the user sets, and
// no metrics server runs in the test members: the member's HPA controller never writes the
// Deployment itself, so every value of spec.replicas meanwhile is the user's (field-reset-judge.ts).
import type { KubeConfig } from "@kubernetes/client-node";
import { LABELS } from "../../shared/api/types.ts";
import { isKubeStatus, KubeRest } from "../../shared/kube-rest.ts";
import { NAMESPACE } from "./churn-model.ts";
import type { HpaEpisode } from "./field-reset-judge.ts";
import { fromPlanned, type HpaPlan } from "./fault-plan.ts";

const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`;
const HPAS = `/apis/autoscaling/v2/namespaces/${NAMESPACE}/horizontalpodautoscalers`;
/** The part of an HPA's name that marks it as the chaos user's. */
export const USER_HPA = "-userhpa";

interface Meta {
  metadata: { name: string; uid: string; resourceVersion: string };
}

/** The names of the Deployments the member's HPAs target now. */
export async function hpaTargets(rest: KubeRest): Promise<string[]> {
  const list = await rest.request<{ items?: { spec?: { scaleTargetRef?: { kind?: string; name?: string } } }[] }>("GET", HPAS, { timeoutMs: 10_000 });
  return (list.items ?? []).flatMap((h) => (h.spec?.scaleTargetRef?.kind === "Deployment" && h.spec.scaleTargetRef.name ? [h.spec.scaleTargetRef.name] : []));
}

/**
 * `kubectl autoscale deployment X --min 1 --max 30` on the member's Deployment of Flotilla's at
 * `pick` (a fraction of their sorted names, [0, 1)) that no HPA targets yet, then `kubectl scale
 * --replicas N`. Undefined when the member holds none.
 */
export async function startHpa(kc: KubeConfig, member: string, pick: number, replicas: number): Promise<HpaEpisode | undefined> {
  const rest = new KubeRest(kc);
  try {
    const list = await rest.request<{ items?: Meta[] }>("GET", DEPLOYMENTS, { query: { labelSelector: LABELS.work }, timeoutMs: 10_000 });
    const taken = new Set(await hpaTargets(rest));
    const names = (list.items ?? []).map((d) => d.metadata.name).filter((n) => !taken.has(n)).sort();
    const deployment = names[Math.floor(pick * names.length)];
    if (deployment === undefined) return undefined;
    const hpa = `${deployment}${USER_HPA}`;
    const fromMs = Date.now();
    await rest.request("POST", HPAS, {
      body: {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: hpa, namespace: NAMESPACE },
        spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: deployment }, minReplicas: 1, maxReplicas: 30 },
      },
      timeoutMs: 10_000,
    });
    const episode: HpaEpisode = { member, deployment, hpa, fromMs, scales: [] };
    // Just made, the Deployment listed a moment ago: "gone" here means the churn took it meanwhile.
    await scaleHpaTarget(rest, episode, replicas);
    return episode;
  } finally {
    rest.close();
  }
}

/** `kubectl scale deployment X --replicas N` while the user's HPA is there; records the write. Returns what stopped it, if anything. */
export async function scaleHpaTarget(restOrKc: KubeRest | KubeConfig, e: HpaEpisode, replicas: number): Promise<"done" | "its HPA is gone" | "its Deployment is gone"> {
  const rest = restOrKc instanceof KubeRest ? restOrKc : new KubeRest(restOrKc);
  try {
    // A fault may have deleted the namespace, HPA and all: then there is nothing of the user's to scale.
    const there = await rest.request("GET", `${HPAS}/${e.hpa}`, { timeoutMs: 10_000 }).catch((err: unknown) => (isKubeStatus(err, 404) ? undefined : Promise.reject(err)));
    if (there === undefined) return "its HPA is gone";
    const scale = await rest.mergePatch<Meta>(`${DEPLOYMENTS}/${e.deployment}/scale`, { spec: { replicas } }).catch((err: unknown) => (isKubeStatus(err, 404) ? undefined : Promise.reject(err)));
    if (scale === undefined) return "its Deployment is gone";
    e.scales.push({ uid: scale.metadata.uid, replicas, resourceVersion: Number(scale.metadata.resourceVersion), atMs: Date.now() });
    return "done";
  } finally {
    if (rest !== restOrKc) rest.close();
  }
}

/** `kubectl delete hpa X`: the episode ends when the user asks. */
export async function endHpa(kc: KubeConfig, e: HpaEpisode): Promise<void> {
  const rest = new KubeRest(kc);
  try {
    e.toMs = Date.now();
    await rest.delete(`${HPAS}/${e.hpa}`).catch((err: unknown) => (isKubeStatus(err, 404) ? undefined : Promise.reject(err)));
  } finally {
    rest.close();
  }
}

/** What playHpas did: the episodes, the template updates it asked for, the writes that failed. */
export interface HpaRecord {
  episodes: HpaEpisode[];
  templateUpdates: number;
  /** Plans that found no Deployment of Flotilla's on any member. */
  nothingToHold: number;
  errors: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Follows the HPA plan from `start` (Date.now()): each episode on its planned member (or the next
 * one holding a Deployment of Flotilla's), its rescale, its template's replicas changed through
 * `updateTemplate` (the churn's own write: one at a time with the churn), and its end.
 */
export async function playHpas(plan: readonly HpaPlan[], members: readonly { name: string; kubeConfig(): KubeConfig }[], start: number, updateTemplate: (deployment: string, replicas: number) => Promise<boolean>, log: (line: string) => void): Promise<HpaRecord> {
  const out: HpaRecord = { episodes: [], templateUpdates: 0, nothingToHold: 0, errors: [] };
  const until = (ms: number) => sleep(Math.max(0, start + ms - Date.now()));
  const step = async (what: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      // The member's apiserver may be down (a fault): listed, not retried, as with users' writes.
      out.errors.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  for (const p of plan) {
    await until(p.atMs);
    let e: HpaEpisode | undefined;
    let kc: KubeConfig | undefined;
    for (const m of fromPlanned(members, p.member)) {
      if (e !== undefined) break;
      kc = m.kubeConfig();
      await step(`hpa in ${m.name}`, async () => void (e = await startHpa(m.kubeConfig(), m.name, p.pick, p.replicas)));
    }
    if (e === undefined || kc === undefined) {
      out.nothingToHold++;
      continue;
    }
    const episode = e;
    const memberKc = kc;
    out.episodes.push(episode);
    log(`user-hpa ${episode.hpa} on Deployment/${episode.deployment} in ${episode.member}, scaled to ${p.replicas}`);
    const steps = [
      { atMs: p.atMs + p.rescaleAfterMs, run: () => step(`scale ${episode.deployment} in ${episode.member}`, async () => log(`user-scale Deployment/${episode.deployment} in ${episode.member} to ${p.rescaleTo}: ${await scaleHpaTarget(memberKc, episode, p.rescaleTo)}`)) },
      { atMs: p.atMs + p.updateAfterMs, run: () => step(`template ${episode.deployment}`, async () => void ((await updateTemplate(episode.deployment, p.templateReplicas)) && out.templateUpdates++)) },
    ].sort((a, b) => a.atMs - b.atMs);
    for (const s of steps) {
      await until(s.atMs);
      await s.run();
    }
    if (p.endMs === undefined) continue;
    await until(p.endMs);
    await step(`delete ${episode.hpa} in ${episode.member}`, () => endHpa(memberKc, episode));
    log(`user-hpa ${episode.hpa} in ${episode.member} deleted`);
  }
  return out;
}
