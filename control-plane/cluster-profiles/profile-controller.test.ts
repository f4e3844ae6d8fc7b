// The faults that must not delete Flotilla's ClusterProfile of a Cluster (DESIGN §11): caches not
// synced yet, or a Cluster cache that lags the apiserver. Only a Cluster the apiserver itself no
// longer has is the intent, and then only the profile at the uid and version decided on goes.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import pino from "pino";
import type { Cluster } from "../../shared/api/types.ts";
import type { Informer } from "../../shared/informer.ts";
import { KubeError, type KubeRest } from "../../shared/kube-rest.ts";
import type { Caches } from "../caches/caches.ts";
import type { EventRecorder } from "../status/event-recorder.ts";
import { cluster, NS, profile } from "./cluster-profile.fixtures.ts";
import type { ClusterProfile } from "./cluster-profile.ts";
import { ProfileController } from "./profile-controller.ts";

function informer<T extends { metadata: { name?: string } }>(items: T[], synced = true): Informer<T> {
  return { on: () => undefined, list: () => items, get: (name: string) => items.find((i) => i.metadata.name === name), synced } as unknown as Informer<T>;
}

function setup(o: { cached: Cluster[]; live: Cluster | undefined; synced?: boolean }) {
  const calls: { verb: string; path: string; body?: unknown }[] = [];
  const rest = {
    get: async (path: string) => {
      calls.push({ verb: "get", path });
      if (o.live === undefined) throw new KubeError(404, "NotFound", "not found");
      return o.live;
    },
    delete: async (path: string, body?: unknown) => {
      calls.push({ verb: "delete", path, body });
      return {};
    },
  } as unknown as KubeRest;
  const pc = new ProfileController({
    caches: { clusters: informer(o.cached, o.synced ?? true) } as unknown as Caches,
    profiles: informer<ClusterProfile>([profile()]),
    rest,
    log: pino({ level: "silent" }),
    recorder: { record: () => undefined } as unknown as EventRecorder,
    namespace: NS,
    access: () => undefined,
    ready: () => true,
  });
  const reconcile = (name: string) => (pc as unknown as { reconcile(n: string): Promise<unknown> }).reconcile(name);
  return { calls, reconcile };
}

describe("ProfileController: when Flotilla's profile goes", () => {
  it("a Cluster cache that lags the apiserver (Cluster missing there, present here) deletes nothing, and asks again", async () => {
    const { calls, reconcile } = setup({ cached: [], live: cluster() });
    const r = await reconcile("member1");
    assert.deepEqual(calls.map((c) => c.verb), ["get"]);
    assert.deepEqual(r, { requeueAfterMs: 1000 });
  });

  it("caches not synced yet: nothing is asked, nothing deleted", async () => {
    const { calls, reconcile } = setup({ cached: [], live: undefined, synced: false });
    assert.equal(await reconcile("member1"), undefined);
    assert.deepEqual(calls, []);
  });

  it("a Cluster the cache and the apiserver both lack: its profile goes, at the uid and version decided on", async () => {
    const { calls, reconcile } = setup({ cached: [], live: undefined });
    await reconcile("member1");
    assert.deepEqual(calls.map((c) => c.verb), ["get", "delete"]);
    assert.deepEqual((calls[1]?.body as { preconditions?: unknown }).preconditions, { uid: "profile-uid", resourceVersion: "41" });
  });
});
