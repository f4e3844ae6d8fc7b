// Real metrics for fake pods: a member started with metrics serves metrics.k8s.io through its own
// apiserver (metrics-server scraping kwok), with the usage a test sets; Nodes get settable room.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { AppsV1Api, CoreV1Api } from "@kubernetes/client-node";
import { binaryPath, ensureBinaries } from "./binaries.ts";
import type { Cluster } from "./cluster.ts";
import { type Fleet, startFleet } from "./fleet.ts";
import { isListening } from "./free-port.ts";
import { isProcessAlive } from "./managed-process.ts";
import { setNodeCapacity, setPodUsage, setWorkloadUsage } from "./usage.ts";
import { waitFor } from "./wait.ts";

const run = promisify(execFile);
const ns = "metrics-demo";
const labels = { app: "web" };
/** Two scrapes at metrics-server's 10 s resolution, with room for a loaded machine. */
const readingTimeoutMs = 90_000;

/** A Kubernetes CPU quantity ("449873n", "450m", "2") in cores. */
function cores(q: string): number {
  const m = /^([0-9.]+)(n|u|m)?$/.exec(q);
  if (m === null) throw new Error(`not a CPU quantity: ${q}`);
  const scale = { n: 1e-9, u: 1e-6, m: 1e-3 }[m[2] as "n" | "u" | "m"] ?? 1;
  return Number(m[1]) * scale;
}

/** A memory quantity ("102400Ki", "100Mi", "1048576") in bytes. */
function bytes(q: string): number {
  const m = /^([0-9.]+)(Ki|Mi|Gi|k|M|G)?$/.exec(q);
  if (m === null) throw new Error(`not a memory quantity: ${q}`);
  const scale = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 }[m[2] as "Ki"] ?? 1;
  return Number(m[1]) * scale;
}

interface PodReading {
  cpu: number;
  memory: number;
}

describe("test/env member metrics", () => {
  let fleet: Fleet;
  let member: Cluster;
  let kubectl: string;
  let pods: string[] = [];

  /** What `kubectl get --raw` says the metrics API holds for the namespace's pods, by pod name. */
  async function podMetrics(): Promise<Map<string, PodReading>> {
    const { stdout } = await run(kubectl, ["--kubeconfig", member.kubeconfigPath, "get", "--raw", `/apis/metrics.k8s.io/v1beta1/namespaces/${ns}/pods`]);
    const list = JSON.parse(stdout) as { items: { metadata: { name: string }; containers: { usage: { cpu: string; memory: string } }[] }[] };
    return new Map(
      list.items.map((p) => [
        p.metadata.name,
        {
          cpu: p.containers.reduce((s, c) => s + cores(c.usage.cpu), 0),
          memory: p.containers.reduce((s, c) => s + bytes(c.usage.memory), 0),
        },
      ]),
    );
  }

  /** Waits until every named pod reads its expected CPU (±5 %); returns the last readings. */
  async function untilReadings(want: Record<string, number>, what: string): Promise<Map<string, PodReading>> {
    let last = new Map<string, PodReading>();
    try {
      return await waitFor(
        async () => {
          last = await podMetrics();
          const ok = Object.entries(want).every(([pod, cpu]) => {
            const r = last.get(pod);
            return r !== undefined && Math.abs(r.cpu - cpu) <= cpu * 0.05;
          });
          return ok ? last : undefined;
        },
        { what, timeoutMs: readingTimeoutMs, intervalMs: 1000 },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}; last readings ${JSON.stringify(Object.fromEntries(last))}`, { cause: err });
    }
  }

  before(async () => {
    kubectl = binaryPath(await ensureBinaries(), "kubectl");
    fleet = await startFleet({ members: 1, metrics: true });
    member = fleet.members[0] as Cluster;
    const kc = member.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const apps = kc.makeApiClient(AppsV1Api);
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: "web", labels },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              containers: [{ name: "web", image: "nginx:1.27", resources: { requests: { cpu: "500m", memory: "128Mi" } } }],
            },
          },
        },
      },
    });
    pods = await waitFor(
      async () => {
        const list = await core.listNamespacedPod({ namespace: ns, labelSelector: "app=web" });
        const running = list.items.filter((p) => p.status?.phase === "Running").map((p) => p.metadata?.name as string);
        return running.length === 2 ? running.sort() : undefined;
      },
      { what: "2 web pods Running", timeoutMs: 60_000, intervalMs: 250 },
    );
  });

  after(async () => {
    await fleet?.stop();
  });

  it("registers metrics-server as the member's v1beta1.metrics.k8s.io APIService", async () => {
    const { stdout } = await run(kubectl, ["--kubeconfig", member.kubeconfigPath, "get", "apiservice", "v1beta1.metrics.k8s.io", "-o", "json"]);
    const svc = JSON.parse(stdout) as { spec: { service: { name: string } }; status: { conditions: { type: string; status: string }[] } };
    assert.equal(svc.spec.service.name, "metrics-server");
    assert.ok(svc.status.conditions.some((c) => c.type === "Available" && c.status === "True"), "Available");
  });

  it("serves kwok's fallback usage (1m, 1Mi) for pods no usage names yet", async () => {
    const readings = await untilReadings({ [pods[0] as string]: 0.001, [pods[1] as string]: 0.001 }, "both pods at the fallback 1m");
    for (const pod of pods) assert.equal(readings.get(pod)?.memory, 1024 ** 2, `${pod} memory`);
  });

  it("serves the CPU and memory set for a workload's pods: 90% of the 500m request", async () => {
    await setWorkloadUsage(member.kubeConfig(), ns, labels, { cpu: "450m", memory: "100Mi" });
    const readings = await untilReadings({ [pods[0] as string]: 0.45, [pods[1] as string]: 0.45 }, "both pods at 450m");
    for (const pod of pods) assert.equal(readings.get(pod)?.memory, 100 * 1024 ** 2, `${pod} memory`);
  });

  it("follows a change: one pod's own usage wins over the workload's, and the workload's changes the other", async () => {
    const [first, second] = pods as [string, string];
    await setPodUsage(member.kubeConfig(), ns, [first], { cpu: "200m", memory: "50Mi" });
    await untilReadings({ [first]: 0.2, [second]: 0.45 }, `${first} at 200m, ${second} still at 450m`);
    await setWorkloadUsage(member.kubeConfig(), ns, labels, { cpu: "300m", memory: "100Mi" });
    const readings = await untilReadings({ [first]: 0.2, [second]: 0.3 }, `${second} at 300m, ${first} still at 200m`);
    assert.equal(readings.get(first)?.memory, 50 * 1024 ** 2);
  });

  it("leaves a pod that fits no Node Pending, PodScheduled=False Unschedulable, once Nodes are small", async () => {
    const kc = member.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    for (const node of (await core.listNode()).items) await setNodeCapacity(kc, node.metadata?.name as string, { cpu: "500m" });
    const nodes = await core.listNode();
    for (const n of nodes.items) assert.equal(n.status?.allocatable?.cpu, "500m", `${n.metadata?.name} allocatable`);
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: "big" },
        spec: { containers: [{ name: "big", image: "nginx:1.27", resources: { requests: { cpu: "600m" } } }] },
      },
    });
    const scheduled = await waitFor(
      async () => {
        const pod = await core.readNamespacedPod({ name: "big", namespace: ns });
        return pod.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
      },
      { what: "pod big to be judged by the scheduler", timeoutMs: 60_000, intervalMs: 250 },
    );
    assert.equal(scheduled.reason, "Unschedulable");
    assert.match(scheduled.message ?? "", /Insufficient cpu/);
    const pod = await core.readNamespacedPod({ name: "big", namespace: ns });
    assert.equal(pod.status?.phase, "Pending");
    assert.equal(pod.spec?.nodeName, undefined);
  });

  it("stops every process, frees every port and removes the fleet's directory", async () => {
    const pids = fleet.all().flatMap((c) => c.processes.map((p) => p.pid));
    const names = member.processes.map((p) => p.name);
    assert.ok(names.includes("member1-metrics-server"), `member processes: ${names.join(", ")}`);
    const ports = fleet.all().flatMap((c) => c.ports);
    await fleet.stop();
    for (const pid of pids) assert.ok(!isProcessAlive(pid), `pid ${pid} is gone`);
    for (const port of ports) assert.ok(!(await isListening(port)), `port ${port} is free`);
    assert.ok(!existsSync(fleet.root), `${fleet.root} is removed`);
  });
});
