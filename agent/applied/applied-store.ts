import type { Logger } from "pino";
import { isKubeStatus, type KubeRest } from "../../shared/kube-rest.ts";
import { workKeyLabelValue } from "../../shared/work-key.ts";
import { AppliedIndex } from "./applied-index.ts";
import type { AppliedRecord, AppliedResource } from "../judge/applied-record.ts";

const SHARDS = 16;
const FIELD_MANAGER = "flotilla-agent";

/**
 * The agent's record of applied Works, kept in the member cluster itself as ConfigMaps
 * `<prefix>-0` … `<prefix>-f` (sharded by the key's digest, to stay far below the 1 MiB object
 * limit). Changes are coalesced: a burst of changes to one shard is one write.
 */
export class AppliedStore {
  private readonly records = new Map<string, AppliedRecord>();
  private readonly index = new AppliedIndex();
  private readonly dirty = new Set<number>();
  /** Every kind ("apiVersion|kind") the agent has applied, written before its first apply. */
  private readonly appliedKinds = new Set<string>();
  private readonly kindWrites = new Map<string, Promise<void>>();
  private kindChain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly rest: KubeRest;
  private readonly namespace: string;
  private readonly prefix: string;
  private readonly log: Logger;
  private readonly delayMs: number;
  /** ConfigMap writes made, for tests. */
  writes = 0;

  constructor(opts: { rest: KubeRest; namespace: string; prefix?: string; log: Logger; delayMs?: number }) {
    this.rest = opts.rest;
    this.namespace = opts.namespace;
    this.prefix = opts.prefix ?? "flotilla-agent-applied";
    this.log = opts.log;
    // A record lost in a crash within this window only costs a no-op re-apply after restart.
    this.delayMs = opts.delayMs ?? 1000;
  }

  /** Reads every shard (and creates the namespace if needed). */
  async load(): Promise<void> {
    await this.rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: this.namespace } } }).catch((err: unknown) => {
      if (!isKubeStatus(err, 409)) throw err;
    });
    try {
      const kinds = await this.rest.get<{ data?: Record<string, string> }>(this.kindsPath());
      for (const id of Object.values(kinds.data ?? {})) this.appliedKinds.add(id);
    } catch (err) {
      if (!isKubeStatus(err, 404)) throw err;
    }
    for (let shard = 0; shard < SHARDS; shard++) {
      let cm: { data?: Record<string, string> };
      try {
        cm = await this.rest.get(this.path(shard));
      } catch (err) {
        if (isKubeStatus(err, 404)) continue;
        throw err;
      }
      for (const value of Object.values(cm.data ?? {})) {
        try {
          const r = JSON.parse(value) as AppliedRecord;
          this.index.put(r, this.records.get(r.key));
          this.records.set(r.key, r);
        } catch {
          this.log.warn({ shard }, "ignoring an unreadable applied record");
        }
      }
    }
  }

  get(key: string): AppliedRecord | undefined {
    return this.records.get(key);
  }

  keys(): string[] {
    return [...this.records.keys()];
  }

  /** Every record, by work key. */
  all(): ReadonlyMap<string, AppliedRecord> {
    return this.records;
  }

  set(record: AppliedRecord): void {
    this.index.put(record, this.records.get(record.key));
    this.records.set(record.key, record);
    this.touch(record.key);
  }

  delete(key: string): void {
    const before = this.records.get(key);
    if (before === undefined) return;
    this.index.remove(before);
    this.records.delete(key);
    this.touch(key);
  }

  /** Another Work whose record names the same object, if any (without a scan of every record). */
  otherNaming(key: string, r: AppliedResource): string | undefined {
    return this.index.otherNaming(key, r);
  }

  /** The kinds the agent has ever applied here (for the scan for objects no record names). */
  kinds(): { apiVersion: string; kind: string }[] {
    return [...this.appliedKinds].map((id) => {
      const [apiVersion = "", kind = ""] = id.split("|");
      return { apiVersion, kind };
    });
  }

  /**
   * Makes sure the kind is written down before the agent first applies an object of it, so that
   * after a crash between an apply and its (coalesced) record, a scan of the written kinds finds
   * the object: nothing Flotilla applied can become an orphan nobody looks for (DESIGN §11).
   * One write per new kind, not per object.
   */
  async ensureKind(apiVersion: string, kind: string): Promise<void> {
    const id = `${apiVersion}|${kind}`;
    if (this.appliedKinds.has(id)) return;
    // Concurrent first applies of one kind share one write; writes of different kinds go one
    // after the other, each with every kind known so far, so none is lost.
    let writing = this.kindWrites.get(id);
    if (writing === undefined) {
      writing = this.kindChain
        .catch(() => undefined)
        .then(async () => {
          const all = [...new Set([...this.appliedKinds, id])].sort();
          this.writes++;
          const data = Object.fromEntries(all.map((k) => [k.replace(/[^-._a-zA-Z0-9]/g, "."), k]));
          await this.rest.apply(this.kindsPath(), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${this.prefix}-kinds`, namespace: this.namespace }, data }, FIELD_MANAGER);
          this.appliedKinds.add(id);
        })
        .finally(() => this.kindWrites.delete(id));
      this.kindWrites.set(id, writing);
      this.kindChain = writing;
    }
    await writing;
  }

  /** Writes whatever is pending now. */
  async flush(): Promise<void> {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.flushing = this.flushing.then(() => this.writeDirty());
    await this.flushing;
  }

  private touch(key: string): void {
    this.dirty.add(shardOf(key));
    this.arm();
  }

  private arm(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch((err: unknown) => this.log.warn({ err: String(err) }, "saving applied records failed; will retry"));
    }, this.delayMs);
  }

  private async writeDirty(): Promise<void> {
    const shards = [...this.dirty];
    this.dirty.clear();
    for (const [i, shard] of shards.entries()) {
      const data: Record<string, string> = {};
      for (const r of this.records.values()) if (shardOf(r.key) === shard) data[workKeyLabelValue(r.key)] = JSON.stringify(r);
      try {
        this.writes++;
        await this.rest.apply(this.path(shard), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: this.name(shard), namespace: this.namespace }, data }, FIELD_MANAGER);
      } catch (err) {
        // This shard and those not reached yet are still to be written.
        for (const s of shards.slice(i)) this.dirty.add(s);
        this.arm();
        throw err;
      }
    }
  }

  private name(shard: number): string {
    return `${this.prefix}-${shard.toString(16)}`;
  }

  private kindsPath(): string {
    return `/api/v1/namespaces/${this.namespace}/configmaps/${this.prefix}-kinds`;
  }

  private path(shard: number): string {
    return `/api/v1/namespaces/${this.namespace}/configmaps/${this.name(shard)}`;
  }
}

function shardOf(key: string): number {
  return Number.parseInt(workKeyLabelValue(key).slice(0, 1), 16);
}
