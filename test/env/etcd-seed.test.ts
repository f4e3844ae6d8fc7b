// The etcd seed: its key and switch (pure), and its making into an empty cache with the real
// binaries; env.test.ts starts clusters from it.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ensureBinaries } from "./binaries.ts";
import { startEtcd } from "./etcd.ts";
import { etcdSeed, seedPath, seedWanted } from "./etcd-seed.ts";
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

describe("etcd seed, made", () => {
  it("is made once into an empty cache, small (its WAL sparse), without its scratch directory, and an etcd starts from it", async () => {
    const real = await ensureBinaries();
    const root = await mkdtemp(join(tmpdir(), "flotilla-seed-"));
    try {
      const binDir = join(root, "bin", "0123abcd");
      await mkdir(binDir, { recursive: true });
      for (const name of ["etcd", "kube-apiserver"]) await symlink(join(real, name), join(binDir, name));
      const [a, b] = await Promise.all([etcdSeed(binDir), etcdSeed(binDir)]);
      assert.equal(a, seedPath(binDir));
      assert.equal(b, a, "one seed for both callers");
      assert.deepEqual(await readdir(join(root, "etcd-seed")), [a.split("/").at(-1)], "no scratch directory left beside it");
      const kib = Number(execFileSync("du", ["-sk", a], { encoding: "utf8" }).split("\t")[0]);
      assert.ok(kib < 8 * 1024, `the seed takes ${kib} KiB on disk`);
      const dir = join(root, "started");
      const etcd = await startEtcd({ binDir, dir, name: "member9", seed: a });
      try {
        const res = await fetch(`${etcd.clientUrl}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: Buffer.from("/registry/clusterrolebindings/cluster-admin").toString("base64") }) });
        const body = (await res.json()) as { count?: string };
        assert.equal(body.count, "1", "the seed holds the apiserver's first-start writes");
        const ns = await fetch(`${etcd.clientUrl}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: Buffer.from("/registry/namespaces/").toString("base64"), range_end: Buffer.from("/registry/namespaces0").toString("base64"), count_only: true }) });
        assert.equal(((await ns.json()) as { count?: string }).count, undefined, "and no namespace (their uids are cluster IDs)");
      } finally {
        await etcd.process.stop();
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
