import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import type { Informer } from "../../shared/informer.ts";
import type { KubeRest, ResourceInfo } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { Caches } from "./caches.ts";
import { FakeInformer } from "./fake-informer.fixtures.ts";

/** A stand-in whose first list was refused: start() resolved, the cache is not synced yet. */
class RefusedFirstList extends FakeInformer<never> {
  private release: () => void = () => undefined;
  private readonly listed = new Promise<void>((resolve) => (this.release = resolve));
  override whenSynced(): Promise<void> {
    return this.listed;
  }
  listSucceeds(): void {
    this.release();
  }
}

describe("Caches.start", () => {
  it("resolves only once every cache holds a successful list, not when a refused list left one empty", async () => {
    let refused: RefusedFirstList | undefined;
    const make = (resource: ResourceInfo) => {
      if (resource.plural !== "resourcebindings") return new FakeInformer(resource) as unknown as Informer<unknown>;
      refused = new RefusedFirstList(resource);
      return refused as unknown as Informer<unknown>;
    };
    const caches = new Caches(new KubeConfig(), {} as KubeRest, silentLogger(), make);
    let started = false;
    const starting = caches.start().then(() => (started = true));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(started, false, "controllers must not start on an unlisted bindings cache");
    refused?.listSucceeds();
    await starting;
    assert.equal(started, true);
  });

  it("does not wait for the DNS caches: DNS is optional, and its CRDs may be absent", async () => {
    const make = (resource: ResourceInfo) =>
      (resource.plural === "servicednsrecords" ? new RefusedFirstList(resource) : new FakeInformer(resource)) as unknown as Informer<unknown>;
    const caches = new Caches(new KubeConfig(), {} as KubeRest, silentLogger(), make);
    const outcome = await Promise.race([caches.start().then(() => "started"), new Promise((r) => setTimeout(r, 200, "waiting"))]);
    assert.equal(outcome, "started", "an unlisted ServiceDNSRecord cache must not hold propagation back");
  });
});
