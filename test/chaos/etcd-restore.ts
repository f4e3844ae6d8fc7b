// The control cluster's etcd restored from a snapshot, as an operator recovering from a bad
// change would: the snapshot is a copy of the data directory of the etcd stopped for a moment
// (SIGTERM, copy, start again); the restore stops the apiserver and etcd, puts the copy back,
// and starts both. No etcdutl is built here, so what `etcdutl snapshot restore --bump-revision
// --mark-compacted` does (the documented safe restore) is done through etcd's JSON gateway:
// revisions are bumped past the last one served before the restore and compacted, so every
// client that watched (the control plane's informers, kube-controller-manager) gets 410 Gone and
// lists again instead of silently resuming at a revision the restored history reuses.
import { cp, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Cluster } from "../env/cluster.ts";
import type { ManagedProcess } from "../env/managed-process.ts";

export interface EtcdSnapshot {
  /** The copy of the data directory. */
  dir: string;
  takenAtMs: number;
}

/** Revisions past the last one served before the restore. */
const BUMP_MARGIN = 1_000;
const PARALLEL_PUTS = 16;

function processNamed(c: Cluster, name: string): ManagedProcess {
  const p = c.processes.find((x) => x.name === `${c.name}-${name}`);
  if (p === undefined) throw new Error(`${c.name} has no ${name}`);
  return p;
}

async function etcdCall<T>(c: Cluster, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${c.etcdUrl}${path}`, { method: "POST", body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const b64 = (s: string) => Buffer.from(s).toString("base64");

/** The store's current revision. */
export async function etcdRevision(c: Cluster): Promise<number> {
  const r = await etcdCall<{ header: { revision: string } }>(c, "/v3/kv/range", { key: b64("/flotilla-chaos/revision") });
  return Number(r.header.revision);
}

/** Copies the data directory of the cluster's etcd, stopped meanwhile (the apiserver waits). */
export async function snapshotEtcd(c: Cluster, into: string): Promise<EtcdSnapshot> {
  const etcd = processNamed(c, "etcd");
  await etcd.stop();
  const takenAtMs = Date.now();
  try {
    await rm(into, { recursive: true, force: true });
    await cp(join(c.dir, "etcd"), into, { recursive: true });
  } finally {
    await etcd.restart(120_000);
  }
  return { dir: into, takenAtMs };
}

/** Puts the snapshot back under the cluster's apiserver; resolves once both serve again. */
export async function restoreEtcd(c: Cluster, snapshot: EtcdSnapshot): Promise<{ revertedRevisions: number }> {
  const etcd = processNamed(c, "etcd");
  const apiserver = processNamed(c, "kube-apiserver");
  const served = await etcdRevision(c);
  await apiserver.kill();
  await etcd.stop();
  await rm(join(c.dir, "etcd"), { recursive: true, force: true });
  await cp(snapshot.dir, join(c.dir, "etcd"), { recursive: true });
  await etcd.restart(120_000);
  const restored = await etcdRevision(c);
  // Bump past every revision a client may have seen, then compact there (see the top).
  let revision = restored;
  let n = 0;
  const put = async (): Promise<void> => {
    while (revision <= served + BUMP_MARGIN) {
      const r = await etcdCall<{ header: { revision: string } }>(c, "/v3/kv/put", { key: b64("/flotilla-chaos/bump"), value: b64(String(n++)) });
      revision = Math.max(revision, Number(r.header.revision));
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_PUTS }, put));
  await etcdCall(c, "/v3/kv/compaction", { revision: String(revision) });
  await apiserver.restart(120_000);
  return { revertedRevisions: served - restored };
}
