// What never-destroy-partitions.test.ts and never-destroy-restarts.test.ts share: a 2-member fleet
// whose hub keeps a partitioned cluster's copies (graceful eviction 10 m, the production default)
// and notices a silent agent within seconds, the readers both files use, and a Divided workload.
import { after, before } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import assert from "node:assert/strict";
import { apply, type BindingJson, deploymentJson, eventually, getJson, kubectl, placementPolicyJson } from "./helpers.ts";

export const NS = "keep";

export interface DeploymentJson {
  metadata: { uid: string };
  spec: { replicas: number };
}

export const deployment = (name: string, replicas: number, image = "nginx") => deploymentJson(name, NS, replicas, image);

/** The fleet of one file, started in its before() and stopped in its after(); read its fields inside tests. */
export interface KeepFleet {
  fleet: Fleet;
  flotilla: Flotilla;
  m1: Cluster;
  m2: Cluster;
  deploy(m: Cluster, name: string): Promise<DeploymentJson | undefined>;
  binding(name: string): Promise<BindingJson | undefined>;
}

/** Registers the file's before() and after() hooks; call at the top of its describe. */
export function keepFleet(): KeepFleet {
  const h = {} as KeepFleet;
  before(async () => {
    h.fleet = await startFleet({ members: 2 });
    // The production default: a partition shorter than this never evicts a Divided copy. The hub
    // closes the stream of an agent that answers no ping for --grpc-keepalive-interval +
    // --grpc-keepalive-timeout: 3 s + 3 s here (30 s + 10 s in production), so a partitioned agent
    // comes back through a reconnect and resync, as after a long partition.
    h.flotilla = await startFlotilla(h.fleet, { gracefulEvictionPeriod: "10m", controlPlaneArgs: ["--grpc-keepalive-interval=3s", "--grpc-keepalive-timeout=3s"] });
    [h.m1, h.m2] = h.fleet.members as [Cluster, Cluster];
    await kubectl(h.fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await h.flotilla?.stop();
    await h.fleet?.stop();
  });
  h.deploy = (m, name) => getJson<DeploymentJson>(m, ["deploy", "-n", NS, name]);
  h.binding = (name) => getJson<BindingJson>(h.fleet.control, ["rb", "-n", NS, `${name}-deployment`]);
  return h;
}

/** A cluster's Ready condition on its Cluster object in the control cluster. */
export interface ReadyCondition {
  status: string;
  lastTransitionTime: string;
}

/**
 * A Deployment "shared" of 4 replicas Divided by weight over member1 and member2 (2 + 2), running
 * in both; returns how to read the binding's split, each cluster's Ready condition, and a check
 * that both members still run the same objects (same uid) as when it began.
 */
export async function sharedDivided(h: KeepFleet) {
  const divided = placementPolicyJson("shared", NS, ["member1", "member2"], { replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted" } });
  const split = (b: BindingJson) => b.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ");
  await apply(h.fleet.control, deployment("shared", 4));
  await apply(h.fleet.control, divided);
  await eventually("2/2", () => h.binding("shared"), (b) => split(b) === "member1=2 member2=2");
  const uid1 = (await eventually("member1 runs 2", () => h.deploy(h.m1, "shared"), (d) => d.spec.replicas === 2)).metadata.uid;
  const uid2 = (await eventually("member2 runs 2", () => h.deploy(h.m2, "shared"), (d) => d.spec.replicas === 2)).metadata.uid;
  const sameObjects = async (when: string) => {
    assert.equal((await h.deploy(h.m1, "shared"))?.metadata.uid, uid1, `member1's object is the same ${when}`);
    assert.equal((await h.deploy(h.m2, "shared"))?.metadata.uid, uid2, `member2's object is the same ${when}`);
  };
  const ready = async (name: string) => (await getJson<{ status?: { conditions?: (ReadyCondition & { type: string })[] } }>(h.fleet.control, ["cluster", name]))?.status?.conditions?.find((c) => c.type === "Ready");
  return { split, sameObjects, ready };
}
