// The etcd seed's key and switch (pure); env.test.ts starts clusters from it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { seedPath, seedWanted } from "./etcd-seed.ts";
import { FIXED_FLAGS } from "./kube-apiserver.ts";

describe("etcd seed", () => {
  const binDir = "/cache/flotilla/bin/0123abcd";

  it("lives in the cache beside the binaries, under their hash", () => {
    assert.match(seedPath(binDir), /^\/cache\/flotilla\/etcd-seed\/0123abcd-[0-9a-f]{12}$/);
  });

  it("has another key for other binaries or other kube-apiserver flags, the same for the same", () => {
    assert.equal(seedPath(binDir), seedPath(binDir, [...FIXED_FLAGS]));
    assert.notEqual(seedPath(binDir), seedPath("/cache/flotilla/bin/ffff0000"));
    assert.notEqual(seedPath(binDir), seedPath(binDir, [...FIXED_FLAGS, "--runtime-config=api/all=true"]));
    assert.notEqual(seedPath(binDir), seedPath(binDir, FIXED_FLAGS.map((f) => f.replace("10.0.0.0/24", "10.1.0.0/24"))));
  });

  it("is used unless FLOTILLA_TEST_ETCD_SEED=0", () => {
    assert.equal(seedWanted({}), true);
    assert.equal(seedWanted({ FLOTILLA_TEST_ETCD_SEED: "1" }), true);
    assert.equal(seedWanted({ FLOTILLA_TEST_ETCD_SEED: "0" }), false);
  });
});
