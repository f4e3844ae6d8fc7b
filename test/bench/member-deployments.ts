// The Deployments the propagation benchmarks (bench:propagate, bench:vs-karmada) send to the
// members, and the polling that says when they exist and are Available there.
import { collectionPath, type KubeRest, type ResourceInfo } from "../../shared/kube-rest.ts";

export const deployments: ResourceInfo = { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true };

/** The label every bench Deployment carries (the policies select it). */
export const BENCH_LABEL = "bench";

/** Names bench-0000 … of n Deployments. */
export function benchNames(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `bench-${String(i).padStart(4, "0")}`);
}

/** A 1-replica Deployment with a tiny pod spec (kwok runs no containers). */
export function benchDeployment(namespace: string, name: string): unknown {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace, labels: { [BENCH_LABEL]: "true" } },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "registry.k8s.io/pause:3.10" }] } },
    },
  };
}

export interface Watched {
  /** What is awaited, for the report. */
  what: string;
  /** Names still missing; an empty list means done. */
  missing(): Promise<string[]>;
  /** Why, when it never finishes: one line. */
  diagnose?(): Promise<string>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Polls every target every pollMs until each has nothing missing or timeoutMs passed; returns each one's finish time (ms since t0). */
export async function awaitAll(targets: Watched[], t0: number, timeoutMs: number, pollMs = 250): Promise<{ done: Map<string, number>; missing: Map<string, string[]> }> {
  const done = new Map<string, number>();
  const missing = new Map<string, string[]>(targets.map((t) => [t.what, ["(not polled yet)"]]));
  const deadline = t0 + timeoutMs;
  for (;;) {
    await Promise.all(
      targets
        .filter((t) => !done.has(t.what))
        .map(async (t) => {
          try {
            const m = await t.missing();
            missing.set(t.what, m);
            if (m.length === 0) done.set(t.what, performance.now() - t0);
          } catch (err) {
            missing.set(t.what, [`(poll failed: ${(err as Error).message})`]);
          }
        }),
    );
    if (done.size === targets.length || performance.now() > deadline) return { done, missing };
    await sleep(pollMs);
  }
}

interface DeploymentList {
  items: { metadata: { name: string }; status?: { availableReplicas?: number } }[];
}

/**
 * The Deployments `names` of `namespace` in a cluster that do not yet have `available` available
 * replicas; also notes when they all first exist (allExistAt, performance.now()).
 */
export function availableIn(rest: KubeRest, cluster: string, namespace: string, names: readonly string[], available = 1): Watched & { allExistAt?: number } {
  const w: Watched & { allExistAt?: number } = {
    what: `${cluster}/${namespace}`,
    missing: async () => {
      // resourceVersion=0: served from the apiserver's watch cache, the cheapest LIST there is.
      const list = await rest.get<DeploymentList>(collectionPath(deployments, namespace), { resourceVersion: "0" });
      const present = new Set(list.items.map((d) => d.metadata.name));
      if (w.allExistAt === undefined && names.every((n) => present.has(n))) w.allExistAt = performance.now();
      const ok = new Set(list.items.filter((d) => d.status?.availableReplicas === available).map((d) => d.metadata.name));
      return names.filter((n) => !ok.has(n));
    },
    diagnose: async () => {
      type Pod = { status?: { phase?: string; conditions?: { type: string; status: string; message?: string }[] } };
      const pods = await rest.get<{ items: Pod[] }>(`/api/v1/namespaces/${namespace}/pods`);
      const phases = new Map<string, number>();
      for (const p of pods.items) phases.set(p.status?.phase ?? "?", (phases.get(p.status?.phase ?? "?") ?? 0) + 1);
      const unscheduled = pods.items.flatMap((p) => p.status?.conditions?.filter((c) => c.type === "PodScheduled" && c.status === "False") ?? [])[0];
      return `pods ${[...phases].map(([ph, n]) => `${ph} ${n}`).join(", ") || "none"}${unscheduled ? `; unscheduled: ${unscheduled.message}` : ""}`;
    },
  };
  return w;
}

/** Prints what never finished and throws. */
export async function reportMissing(run: string, targets: Watched[], missing: Map<string, string[]>, done: Map<string, number>, timeoutMs: number): Promise<never> {
  console.log(`${run}: not done after ${secs(timeoutMs)}:`);
  for (const t of targets) {
    if (done.has(t.what)) continue;
    const m = missing.get(t.what) ?? [];
    console.log(`  ${t.what}: ${m.length} missing: ${m.slice(0, 20).join(", ")}${m.length > 20 ? ", …" : ""}`);
    if (t.diagnose) console.log(`    ${await t.diagnose().catch((err: Error) => `(diagnosis failed: ${err.message})`)}`);
  }
  throw new Error(`${run}: not everything became Available within ${secs(timeoutMs)}`);
}
