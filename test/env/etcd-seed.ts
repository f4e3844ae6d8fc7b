// An etcd seed: the data directory of an etcd that a kube-apiserver has started on once. A new
// cluster's etcd starts from a copy of it, so its kube-apiserver finds the objects every first
// start writes (RBAC's default roles and bindings, the system namespaces and priority classes, the
// `kubernetes` Service) instead of creating them: about 1 s less CPU for each cluster started
// (docs/development/testing.md). What names one cluster or apiserver (the namespaces, whose uids
// are cluster IDs; its client CA in kube-system/extension-apiserver-authentication; its identity
// lease) is taken out of the seed, and each cluster's apiserver writes its own. The copies are single-member etcds that share
// one member and cluster ID; each is alone on its own ports, so nothing sees two of them.
//
// The seed is kept in the cache beside the binaries, keyed by the binaries' directory and the
// kube-apiserver's fixed flags (FIXED_FLAGS), and made once: by the suite's global setup, or by
// the first cluster of a file run on its own. FLOTILLA_TEST_ETCD_SEED=0 starts every etcd empty.
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { allSettledOrThrow } from "./all-settled.ts";
import { onExit } from "./cleanup.ts";
import { copySeed, type Etcd, startEtcd } from "./etcd.ts";
import { FIXED_FLAGS, startKubeApiserver } from "./kube-apiserver.ts";
import { makeClusterPki } from "./pki.ts";

/** Bump when what goes into a seed changes in a way FIXED_FLAGS does not show. */
const SEED_FORMAT = 2;

/** Where the seed for binDir's binaries lives: `<cache>/etcd-seed/<binaries' hash>-<flags' hash>`. */
export function seedPath(binDir: string, flags: readonly string[] = FIXED_FLAGS): string {
  const key = createHash("sha256").update(JSON.stringify([SEED_FORMAT, flags])).digest("hex").slice(0, 12);
  return join(dirname(dirname(binDir)), "etcd-seed", `${basename(binDir)}-${key}`);
}

/** Whether clusters start from a seed (FLOTILLA_TEST_ETCD_SEED=0: no). */
export function seedWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.FLOTILLA_TEST_ETCD_SEED !== "0";
}

const made = new Map<string, Promise<string>>();

/** The seed for binDir's binaries, made first when the cache has none. */
export function etcdSeed(binDir: string): Promise<string> {
  const path = seedPath(binDir);
  let p = made.get(path);
  if (p === undefined) {
    p = exists(path).then((yes) => (yes ? path : makeSeed(binDir, path)));
    made.set(path, p);
    p.catch(() => made.delete(path));
  }
  return p;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** A maker killed with SIGKILL leaves its scratch directory: those an hour old are removed. */
async function sweepAbandoned(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (!name.startsWith(".making-")) continue;
    const at = await stat(join(dir, name)).then((st) => st.mtimeMs, () => Date.now());
    if (Date.now() - at > 3_600_000) await rm(join(dir, name), { recursive: true, force: true });
  }
}

/**
 * What the seed's own apiserver wrote that names it or its cluster (key, and whether it is a
 * prefix): the namespaces (their uids), the client CA it trusted (an apiserver adds its own CA to the one it finds there, and keeps the old),
 * its identity lease, its Events. Each cluster's apiserver writes its own.
 */
const SEED_ONLY: readonly (readonly [string, boolean])[] = [
  // A namespace's uid names a cluster: Karmada's cluster ID and the MCS API's ClusterProperty
  // `cluster.clusterset.k8s.io` are kube-system's uid. Each apiserver makes its own namespaces.
  ["/registry/namespaces/", true],
  ["/registry/configmaps/kube-system/extension-apiserver-authentication", false],
  ["/registry/leases/kube-system/apiserver-", true],
  ["/registry/events/", true],
];

/** Deletes a key, or every key under a prefix, through etcd's JSON gateway (/v3/kv/deleterange). */
async function deleteKeys(clientUrl: string, key: string, prefix: boolean): Promise<void> {
  const b64 = (b: Buffer) => b.toString("base64");
  const start = Buffer.from(key);
  const end = Buffer.from(key);
  end[end.length - 1] = (end[end.length - 1] as number) + 1;
  const res = await fetch(`${clientUrl}/v3/kv/deleterange`, {
    method: "POST",
    body: JSON.stringify({ key: b64(start), ...(prefix ? { range_end: b64(end) } : {}) }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`etcd deleterange ${key}: HTTP ${res.status} ${await res.text()}`);
}

/**
 * Starts an etcd and a kube-apiserver in a scratch directory beside path, waits for the
 * apiserver's readiness (its first-start writes are done by then: /readyz waits for their
 * post-start hooks), stops it gracefully, deletes what names it (SEED_ONLY), stops etcd, makes the WAL sparse and renames the data directory to
 * path. Several processes may make it at once: the first rename wins, the others throw theirs away.
 */
async function makeSeed(binDir: string, path: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await sweepAbandoned(dirname(path));
  const work = await mkdtemp(join(dirname(path), ".making-"));
  // A process killed meanwhile leaves no half-made seed (its etcd dies with it: pdeathsig).
  const unregister = onExit(() => rmSync(work, { recursive: true, force: true }));
  let etcd: Etcd | undefined;
  try {
    // Both settle before a failure is thrown, so an etcd that started is stopped below.
    const [pki, started] = await allSettledOrThrow([makeClusterPki(work), startEtcd({ binDir, dir: work, name: "seed" }).then((e) => (etcd = e))] as const);
    const apiserver = await startKubeApiserver({ binDir, dir: work, name: "seed", etcdUrl: started.clientUrl, pki });
    await apiserver.process.stop();
    for (const [key, prefix] of SEED_ONLY) await deleteKeys(started.clientUrl, key, prefix);
    await started.process.stop();
    const sparse = join(work, "sparse");
    await mkdir(sparse);
    await copySeed(join(work, "etcd"), sparse);
    await rename(sparse, path).catch(async (err: NodeJS.ErrnoException) => {
      if (!(await exists(path))) throw err;
    });
    return path;
  } finally {
    await etcd?.process.stop();
    await rm(work, { recursive: true, force: true });
    unregister();
  }
}
