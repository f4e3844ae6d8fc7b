// Every write the agent makes to a member's Flotilla objects in one namespace, seen through a
// watch: a write is a change of the agent's managed fields (the time or fields of its
// server-side apply entry), or of the object's labels or annotations; a delete is a DELETED
// event or a new uid under a known name. A server-side apply that changes nothing makes no event,
// so it is no write. Status written by the member's own controllers is not Flotilla's and not
// counted.
import { type KubeConfig, Watch } from "@kubernetes/client-node";
import { LABELS } from "../../shared/api/types.ts";
import { collectionPath, KubeRest, type ResourceInfo } from "../../shared/kube-rest.ts";

const AGENT_MANAGER = "flotilla-agent";

interface Watched {
  spec?: unknown;
  data?: unknown;
  metadata?: {
    name?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: { manager?: string; operation?: string; time?: string; fieldsV1?: unknown }[];
  };
}

/** What one object went through while watched. */
export interface ObjectHistory {
  /** The uid it had when first seen. */
  uid: string;
  writes: number;
  deletes: number;
  /** What changed at each write, for messages: "managed fields", "labels", "annotations". */
  changes: string[];
}

/** The part of an object a Flotilla write changes. Pure. */
export function flotillaFingerprint(o: Watched): { agent: string; labels: string; annotations: string; content: Record<string, string> } {
  const entries = (o.metadata?.managedFields ?? []).filter((m) => m.manager === AGENT_MANAGER).map((m) => ({ operation: m.operation, time: m.time, fields: m.fieldsV1 }));
  return { agent: JSON.stringify(entries), labels: JSON.stringify(o.metadata?.labels ?? {}), annotations: JSON.stringify(o.metadata?.annotations ?? {}), content: topFields(o) };
}

/** `spec.<field>` and `data.<field>` → its JSON, to name what a write changed. */
function topFields(o: Watched): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [top, v] of [["spec", o.spec], ["data", o.data]] as const) {
    if (v === null || typeof v !== "object") continue;
    for (const [k, x] of Object.entries(v)) out[`${top}.${k}`] = JSON.stringify(x);
  }
  return out;
}

/** The fields whose values differ between two fingerprints' contents. Pure. */
export function changedFields(a: Record<string, string>, b: Record<string, string>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
}

/** Watches `resources` in `namespace` of one member; history() is what each object went through. */
export class MemberWrites {
  private readonly objects = new Map<string, ObjectHistory & { last: ReturnType<typeof flotillaFingerprint> }>();
  private readonly aborts = new Set<AbortController>();
  private readonly rest: KubeRest;
  private stopped = false;
  private readonly listed: Promise<void>[] = [];
  private readonly kc: KubeConfig;
  private readonly namespace: string;
  private readonly resources: readonly (ResourceInfo & { kind: string })[];

  constructor(kc: KubeConfig, namespace: string, resources: readonly (ResourceInfo & { kind: string })[]) {
    this.kc = kc;
    this.namespace = namespace;
    this.resources = resources;
    this.rest = new KubeRest(kc);
  }

  /** Lists each resource, then watches it; resolves once every first list is in. */
  async start(): Promise<void> {
    for (const r of this.resources) {
      let first: () => void = () => {};
      this.listed.push(new Promise<void>((resolve) => (first = resolve)));
      void this.loop(r, first);
    }
    await Promise.all(this.listed);
  }

  /** `<Kind>/<name>` → its history. */
  history(): Map<string, ObjectHistory> {
    return new Map([...this.objects].map(([k, { uid, writes, deletes, changes }]) => [k, { uid, writes, deletes, changes: [...changes] }]));
  }

  stop(): void {
    this.stopped = true;
    for (const a of this.aborts) a.abort();
    this.rest.close();
  }

  private async loop(r: ResourceInfo & { kind: string }, listed: () => void): Promise<void> {
    while (!this.stopped) {
      try {
        const list = await this.rest.request<{ metadata?: { resourceVersion?: string }; items?: Watched[] }>("GET", collectionPath(r, this.namespace), { query: { labelSelector: LABELS.work }, timeoutMs: 10_000 });
        const present = new Set((list.items ?? []).map((o) => this.saw(r.kind, o)));
        for (const [key, h] of this.objects) if (key.startsWith(`${r.kind}/`) && !present.has(key) && h.uid !== "") this.deleted(key);
        listed();
        await this.watch(r, list.metadata?.resourceVersion ?? "");
      } catch {
        // the member's apiserver did not answer: list again shortly
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  private watch(r: ResourceInfo & { kind: string }, resourceVersion: string): Promise<void> {
    return new Promise((resolve) => {
      let controller: AbortController | undefined;
      const done = () => {
        if (controller) this.aborts.delete(controller);
        resolve();
      };
      new Watch(this.kc)
        .watch(
          collectionPath(r, this.namespace),
          { resourceVersion, labelSelector: LABELS.work },
          (type: string, o: Watched) => {
            if (type === "ADDED" || type === "MODIFIED") this.saw(r.kind, o);
            else if (type === "DELETED") this.deleted(`${r.kind}/${o.metadata?.name ?? ""}`);
          },
          () => done(),
        )
        .then(
          (c) => {
            controller = c;
            this.aborts.add(c);
            if (this.stopped) c.abort();
          },
          () => done(),
        );
    });
  }

  private saw(kind: string, o: Watched): string {
    const key = `${kind}/${o.metadata?.name ?? ""}`;
    const now = flotillaFingerprint(o);
    const uid = o.metadata?.uid ?? "";
    const h = this.objects.get(key);
    if (h === undefined) {
      this.objects.set(key, { uid, writes: 0, deletes: 0, changes: [], last: now });
      return key;
    }
    if (h.uid !== uid) {
      // Deleted and made again under the same name (the DELETED event may have been missed).
      if (h.uid !== "") h.deletes++;
      h.uid = uid;
      h.writes++;
      h.changes.push("recreated");
    } else {
      const changed = (["agent", "labels", "annotations"] as const).filter((f) => h.last[f] !== now[f]);
      if (changed.length > 0) {
        h.writes++;
        const fields = changedFields(h.last.content, now.content);
        h.changes.push([...changed.map((f) => (f === "agent" ? "managed fields" : f)), ...fields.map((f) => `${f}: ${h.last.content[f] ?? "none"} → ${now.content[f] ?? "none"}`)].join(" + "));
      }
    }
    h.last = now;
    return key;
  }

  private deleted(key: string): void {
    const h = this.objects.get(key);
    if (h === undefined || h.uid === "") return;
    h.deletes++;
    // Kept with no uid: a later sighting is a recreation, counted as a write, not a second delete.
    h.uid = "";
  }
}
