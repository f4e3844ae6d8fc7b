// What progressive-rollout.test.ts and progressive-rollout-restart.test.ts share: the rollout
// policies of the test, and a harness that starts 3 members with Flotilla and reads what a person
// would (the binding's status.rollout, its Rollout condition, the members' images).
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import type { ClusterRollout, RolloutState, RolloutStrategy } from "../../shared/api/types.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { waitFor } from "../env/wait.ts";
import { apply, type BindingJson, type CommandResult, condition, deploymentJson, kubectl, runCommand, sleep } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";


export const CTL = (await ensureTestBundles()).flotillactl;
export const NS = "rollout";
export const MEMBERS = ["member1", "member2", "member3"];
export const SOAK_S = 5;
/** progressDeadline of the good images: they are healthy within seconds, so it is never waited for. */
export const DEADLINE_S = 60;
/**
 * progressDeadline of the bad image's case, which waits it out: short, yet above what the canary
 * takes to run the good image again when rolled back (a few seconds), which the deadline bounds too.
 */
export const BAD_DEADLINE_S = 12;
/** Slack for comparing a time the test saw with one the control plane wrote (same machine clock). */
export const SLACK_MS = 1_000;

export interface RolloutBinding extends BindingJson {
  spec: BindingJson["spec"] & { rollout?: RolloutStrategy };
  status?: BindingJson["status"] & { rollout?: RolloutState };
}

/** `flotillactl rollout status -o json`: the Admin API's RolloutResponse. */
export interface RolloutStatusJson {
  phase: string;
  revision: string;
  stableRevision: string;
  waitingFor: string;
  message: string;
  groups: { name: string; approval: string; clusters: { name: string; revision: string; phase: string; since: string; message: string }[] }[];
}

/** The rollout of the test, group rest-of-fleet's approval, the soak and the deadline given. */
export function rollout(opts: { approval?: "BeforeGroup"; soakS?: number; deadlineS?: number } = {}): RolloutStrategy {
  return {
    groups: [
      { name: "canary", clusterNames: ["member1"] },
      { name: "rest-of-fleet", clusterNames: ["member2", "member3"], ...(opts.approval ? { approval: opts.approval } : {}) },
    ],
    minSuccessTime: `${opts.soakS ?? SOAK_S}s`,
    progressDeadline: `${opts.deadlineS ?? DEADLINE_S}s`,
    onFailure: "Rollback",
  };
}

export function policyJson(name: string, selector: { apiVersion: string; kind: string; name: string }, strategy: RolloutStrategy): string {
  return JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name, namespace: NS },
    spec: {
      resourceSelectors: [selector],
      placement: { clusterAffinity: { clusterNames: MEMBERS }, replicaScheduling: { replicaSchedulingType: "Duplicated" } },
      rollout: strategy,
    },
  });
}

export const webPolicy = (opts: Parameters<typeof rollout>[0] = {}) => policyJson("web", { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, rollout(opts));
export const settingsPolicy = () => policyJson("settings", { apiVersion: "v1", kind: "ConfigMap", name: "settings" }, rollout());
export const secretPolicy = () => policyJson("db", { apiVersion: "v1", kind: "Secret", name: "db" }, rollout());
/** The Secret `db` whose password is `password` (its data holds the base64). */
export const secretJson = (password: string) => JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "db", namespace: NS }, data: { password: Buffer.from(password).toString("base64") } });
export const settingsJson = (version: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: NS }, data: { version } });

/** The value or undefined when the apiserver says 404. */
export async function orAbsent<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

/**
 * Records, every 500 ms until stopped, each value `read` returns and when it first did: what a
 * member's object was throughout a case.
 */
export class Recorder {
  readonly firstSeen = new Map<string, number>();
  private stopped = false;
  private readonly loop: Promise<void>;
  constructor(read: () => Promise<string | undefined>) {
    this.loop = (async () => {
      while (!this.stopped) {
        const v = await read().catch(() => undefined);
        if (v !== undefined && !this.firstSeen.has(v)) this.firstSeen.set(v, Date.now());
        await sleep(500);
      }
    })();
  }
  async stop(): Promise<Map<string, number>> {
    this.stopped = true;
    await this.loop;
    return this.firstSeen;
  }
  values(): string[] {
    return [...this.firstSeen.keys()];
  }
}


/** Starts 3 members and Flotilla before the describe's tests (and stops them after); the readers and waits they use. */
export function rolloutHarness() {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let control: Cluster;
  const members = new Map<string, Cluster>();
  const recorders: Recorder[] = [];

  before(async () => {
    fleet = await startFleet({ members: 3 });
    flotilla = await startFlotilla(fleet);
    control = fleet.control;
    for (const m of fleet.members) members.set(m.name, m);
    await kubectl(control, ["create", "namespace", NS]);
  });
  after(async () => {
    await Promise.all(recorders.map((r) => r.stop()));
    await flotilla?.stop();
    await fleet?.stop();
  });

  const member = (name: string) => members.get(name) as Cluster;
  const apps = (name: string) => member(name).kubeConfig().makeApiClient(AppsV1Api);
  const memberImage = async (name: string) => (await orAbsent(apps(name).readNamespacedDeployment({ name: "web", namespace: NS })))?.spec?.template.spec?.containers[0]?.image;
  const images = async () => Object.fromEntries(await Promise.all(MEMBERS.map(async (m) => [m, await memberImage(m)] as const)));
  const memberPassword = async (name: string) => {
    const data = (await orAbsent(member(name).kubeConfig().makeApiClient(CoreV1Api).readNamespacedSecret({ name: "db", namespace: NS })))?.data;
    return data?.password === undefined ? undefined : Buffer.from(data.password, "base64").toString();
  };
  const memberSettings = async (name: string) => (await orAbsent(member(name).kubeConfig().makeApiClient(CoreV1Api).readNamespacedConfigMap({ name: "settings", namespace: NS })))?.data?.version;
  /** Every image the member's ReplicaSets of web have had (the Deployment's history, kept after the fact). */
  const replicaSetImages = async (name: string) =>
    new Set((await apps(name).listNamespacedReplicaSet({ namespace: NS, labelSelector: "app=web" })).items.flatMap((rs) => (rs.spec?.template?.spec?.containers ?? []).map((c) => c.image)));
  /** Whether the member runs web at `image`, every replica updated and available, no old one left. */
  const runsHealthy = async (name: string, image: string) => {
    const d = await orAbsent(apps(name).readNamespacedDeployment({ name: "web", namespace: NS }));
    const s = d?.status;
    return d?.spec?.template.spec?.containers[0]?.image === image && s?.observedGeneration === d.metadata?.generation && s?.updatedReplicas === 1 && s?.availableReplicas === 1 && s?.replicas === 1;
  };
  const record = (read: () => Promise<string | undefined>) => {
    const r = new Recorder(read);
    recorders.push(r);
    return r;
  };
  const stopRecording = async (r: Recorder) => {
    recorders.splice(recorders.indexOf(r), 1);
    return r.stop();
  };

  const custom = () => control.kubeConfig().makeApiClient(CustomObjectsApi);
  const binding = async (name: string) => orAbsent(custom().getNamespacedCustomObject({ group: "flotilla.dev", version: "v1alpha1", namespace: NS, plural: "resourcebindings", name }) as Promise<RolloutBinding>);
  const state = async (name: string) => (await binding(name))?.status?.rollout;
  const entry = (s: RolloutState | undefined, cluster: string): ClusterRollout | undefined => s?.clusters.find((c) => c.name === cluster);
  const describeState = (s: RolloutState | undefined) =>
    s === undefined ? "no status.rollout" : `${s.phase} rev ${s.revision} (stable ${s.stableRevision})${s.waitingFor ? ` waitingFor ${s.waitingFor}` : ""}${s.message ? ` "${s.message}"` : ""}: ${s.clusters.map((c) => `${c.name} ${c.phase}@${c.revision}`).join(", ")}`;

  /** Waits until check holds; the timeout's message says the last value seen. */
  async function until<T>(what: string, get: () => Promise<T | undefined>, check: (v: T) => boolean, opts: { timeoutMs?: number; show?: (v: T | undefined) => string } = {}): Promise<T> {
    let last: T | undefined;
    try {
      return await waitFor(
        async () => {
          last = await get();
          return last !== undefined && check(last) ? last : undefined;
        },
        { what, timeoutMs: opts.timeoutMs ?? 60_000, intervalMs: 250 },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}; last seen: ${opts.show ? opts.show(last) : JSON.stringify(last)}`, { cause: err });
    }
  }
  /** Waits on the rollout state of a binding. */
  const untilState = (what: string, name: string, check: (s: RolloutState) => boolean, timeoutMs = 60_000) => until(what, () => state(name), check, { timeoutMs, show: describeState });
  const untilImage = (cluster: string, image: string, timeoutMs = 60_000) => until(`${cluster} runs ${image}`, () => memberImage(cluster), (i) => i === image, { timeoutMs });

  const ctl = (args: string[]): Promise<CommandResult> =>
    runCommand(process.execPath, [CTL, ...args], { env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root, FLOTILLA_CONTROL_KUBECONFIG: control.kubeconfigPath } });
  const rolloutStatus = async (): Promise<RolloutStatusJson> => {
    const r = await ctl(["rollout", "status", "deployment/web", "-n", NS, "-o", "json"]);
    assert.equal(r.code, 0, `flotillactl rollout status: ${r.stderr}`);
    return JSON.parse(r.stdout) as RolloutStatusJson;
  };
  /** The reasons of the Events on the template (core/v1, as kubectl describe shows them). */
  const eventReasons = async (kind: string, name: string) => {
    const list = await control.kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: NS, fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}` });
    return new Set(list.items.map((e) => e.reason ?? ""));
  };
  /** The policy's rollout reached the binding (its spec.rollout), so the next template change is rolled out under it. */
  const untilBindingStrategy = (name: string, check: (r: RolloutStrategy) => boolean) => until(`${name}'s spec.rollout updated`, () => binding(name), (b) => b.spec.rollout !== undefined && check(b.spec.rollout), { show: (b) => JSON.stringify(b?.spec.rollout) });

  /**
   * Waits until web's Rollout condition has this status and reason (the status controller writes it
   * from status.rollout, so it may follow the state by a report or two).
   */
  const untilRolloutCondition = (status: "True" | "False", reason: string, timeoutMs = 30_000) =>
    until(`web's Rollout condition ${status} (${reason})`, () => binding("web-deployment"), (b) => condition(b, "Rollout")?.status === status && condition(b, "Rollout")?.reason === reason, {
      timeoutMs,
      show: (b) => JSON.stringify(b && condition(b, "Rollout")),
    });

  /** The rollout of `rev` is done: Succeeded, every cluster Succeeded at it, it is the stable revision. */
  const succeededAt = (rev: string) => (s: RolloutState) => s.phase === "Succeeded" && s.revision === rev && s.stableRevision === rev && s.clusters.length === 3 && s.clusters.every((c) => c.revision === rev && c.phase === "Succeeded");

  /** The first revision of web (nginx:1) is Succeeded on every cluster at once. */
  const firstRevisionSucceeds = async () => {
    await apply(control, deploymentJson("web", NS, 1, "nginx:1"));
    await apply(control, webPolicy());
    const s = await untilState("web's first rollout state", "web-deployment", (x) => x.phase === "Succeeded" && x.clusters.length === 3);
    assert.equal(s.stableRevision, s.revision);
    assert.deepEqual(s.clusters.map((c) => [c.name, c.revision, c.phase]).sort(), MEMBERS.map((m) => [m, s.revision, "Succeeded"]));
    for (const m of MEMBERS) await until(`${m} runs web nginx:1 Available`, () => runsHealthy(m, "nginx:1"), (ok) => ok);
    await untilRolloutCondition("True", "Succeeded");
  };

  return {
    get fleet() {
      return fleet;
    },
    get flotilla() {
      return flotilla;
    },
    get control() {
      return control;
    },
    member, apps, memberImage, images, memberSettings, memberPassword, replicaSetImages, runsHealthy, record, stopRecording, custom, binding, state, entry, describeState, until, untilState, untilImage, ctl, rolloutStatus, eventReasons, untilBindingStrategy, untilRolloutCondition, succeededAt, firstRevisionSucceeds,
  };
}
