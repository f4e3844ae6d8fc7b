// A record of every Flotilla-managed object in the members' chaos namespace, for the whole run:
// list, then watch from the list's resourceVersion; after any break (an apiserver killed with -9),
// list again and count what vanished meanwhile, or came back with another uid, as deletions.
import { type KubeConfig, Watch } from "@kubernetes/client-node";
import { LABELS } from "../../shared/api/types.ts";
import { collectionPath, KubeRest, type ResourceInfo } from "../../shared/kube-rest.ts";
import { templateId, type TemplateKind, NAMESPACE, WIDGET_API_VERSION } from "./churn-model.ts";
import type { ObservedDeletion } from "./deletion-judge.ts";
import type { ReplicaChange } from "./field-reset-judge.ts";

export const WATCHED: readonly (ResourceInfo & { kind: TemplateKind })[] = [
  { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true },
  { apiVersion: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true },
  { apiVersion: "v1", kind: "Secret", plural: "secrets", namespaced: true },
  { apiVersion: WIDGET_API_VERSION, kind: "Widget", plural: "widgets", namespaced: true },
];

interface Seen {
  uid: string;
  firstSeenMs: number;
  /** A Deployment's spec.replicas when last seen. */
  replicas?: number;
}

interface ObjectMeta {
  metadata?: { name?: string; uid?: string; resourceVersion?: string };
  spec?: { replicas?: number };
}

/** Watches one member; deletions() is everything seen to go so far, replicaChanges() every value of a Deployment's spec.replicas. */
export class MemberWatch {
  private readonly deleted: ObservedDeletion[] = [];
  private readonly replicas: ReplicaChange[] = [];
  private readonly known = new Map<string, Seen>();
  private readonly aborts = new Set<AbortController>();
  private stopped = false;
  private readonly rest: KubeRest;
  readonly member: string;
  private readonly kc: KubeConfig;

  constructor(member: string, kc: KubeConfig) {
    this.member = member;
    this.kc = kc;
    this.rest = new KubeRest(kc);
  }

  start(): void {
    for (const r of WATCHED) void this.loop(r);
  }

  deletions(): ObservedDeletion[] {
    return [...this.deleted];
  }

  /** Each value of spec.replicas seen on a Deployment of Flotilla's (its first and every change; after a break in the watch, what the relist shows). */
  replicaChanges(): ReplicaChange[] {
    return [...this.replicas];
  }

  /** How many Flotilla copies the member holds now (of the templates `of` picks), as far as the watch knows. */
  size(of: (id: string) => boolean = () => true): number {
    return [...this.known.keys()].filter(of).length;
  }

  /** Whether the member holds a copy of this template now, as far as the watch knows. */
  holds(id: string): boolean {
    return this.known.has(id);
  }

  stop(): void {
    this.stopped = true;
    for (const a of this.aborts) a.abort();
    this.rest.close();
  }

  private async loop(r: ResourceInfo & { kind: TemplateKind }): Promise<void> {
    let listedOnce = false;
    while (!this.stopped) {
      try {
        const list = await this.rest.request<{ metadata?: { resourceVersion?: string }; items?: ObjectMeta[] }>("GET", collectionPath(r, NAMESPACE), { query: { labelSelector: LABELS.work }, timeoutMs: 10_000 });
        const now = Date.now();
        const present = new Set<string>();
        for (const o of list.items ?? []) present.add(this.saw(r.kind, o, now, listedOnce ? "gone-while-unwatched" : undefined));
        for (const [key, seen] of this.known) {
          if (key.startsWith(`${r.kind}/`) && !present.has(key)) this.gone(key, seen, now, "gone-while-unwatched");
        }
        listedOnce = true;
        await this.watch(r, list.metadata?.resourceVersion ?? "");
      } catch {
        // the apiserver is down, or the Widget CRD not there yet: list again shortly
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  private watch(r: ResourceInfo & { kind: TemplateKind }, resourceVersion: string): Promise<void> {
    return new Promise((resolve) => {
      const w = new Watch(this.kc);
      let controller: AbortController | undefined;
      const done = () => {
        if (controller) this.aborts.delete(controller);
        resolve();
      };
      w.watch(
        collectionPath(r, NAMESPACE),
        { resourceVersion, labelSelector: LABELS.work, allowWatchBookmarks: true },
        (type: string, obj: ObjectMeta) => {
          const now = Date.now();
          if (type === "ADDED" || type === "MODIFIED") this.saw(r.kind, obj, now, "recreated");
          else if (type === "DELETED") {
            const key = templateId(r.kind, obj.metadata?.name ?? "");
            const seen = this.known.get(key);
            if (seen !== undefined && seen.uid === obj.metadata?.uid) this.gone(key, seen, now, "deleted");
          }
        },
        () => done(),
      ).then(
        (c) => {
          controller = c;
          this.aborts.add(c);
          if (this.stopped) c.abort();
        },
        () => done(),
      );
    });
  }

  /** Records a sighting; a new uid for a known name is a deletion of the old copy. Returns the key. */
  private saw(kind: TemplateKind, o: ObjectMeta, now: number, howReplaced: ObservedDeletion["how"] | undefined): string {
    const key = templateId(kind, o.metadata?.name ?? "");
    const uid = o.metadata?.uid ?? "";
    const seen = this.known.get(key);
    if (seen !== undefined && seen.uid !== uid && howReplaced !== undefined) this.deleted.push({ atMs: now, member: this.member, id: key, firstSeenMs: seen.firstSeenMs, how: howReplaced === "gone-while-unwatched" ? howReplaced : "recreated" });
    if (seen === undefined || seen.uid !== uid) this.known.set(key, { uid, firstSeenMs: now });
    const replicas = o.spec?.replicas;
    const known = this.known.get(key) as Seen;
    if (kind === "Deployment" && replicas !== undefined && known.replicas !== replicas) {
      known.replicas = replicas;
      this.replicas.push({ atMs: now, member: this.member, deployment: o.metadata?.name ?? "", uid, replicas, resourceVersion: Number(o.metadata?.resourceVersion ?? 0) });
    }
    return key;
  }

  private gone(key: string, seen: Seen, now: number, how: ObservedDeletion["how"]): void {
    this.known.delete(key);
    this.deleted.push({ atMs: now, member: this.member, id: key, firstSeenMs: seen.firstSeenMs, how });
  }
}
