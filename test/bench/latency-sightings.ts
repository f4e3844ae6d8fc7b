// What the latency benchmark sees in one member: a watch (shared/informer.ts) on the bench's
// ConfigMaps, and waiters that settle at the event a write should cause. A waiter is registered
// before its write is sent, so no event can slip between the write and the wait.
import type { KubeConfig } from "@kubernetes/client-node";
import { Informer } from "../../shared/informer.ts";
import type { KubeRest, ResourceInfo } from "../../shared/kube-rest.ts";
import { createLogger } from "../../shared/logger.ts";

export const configMaps: ResourceInfo = { apiVersion: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true };

export interface SampleObject {
  metadata: { namespace?: string; name?: string };
  data?: Record<string, string>;
}

/** The event a write should cause: the object with `value` in data.v (create, update), or gone (delete). */
export type Expected = { namespace: string; name: string } & ({ value: string } | { deleted: true });

/** Whether a watch event shows what was expected. */
export function shows(expected: Expected, event: "add" | "update" | "delete", obj: SampleObject): boolean {
  if (obj.metadata.namespace !== expected.namespace || obj.metadata.name !== expected.name) return false;
  if ("deleted" in expected) return event === "delete";
  return event !== "delete" && obj.data?.v === expected.value;
}

interface Waiter {
  expected: Expected;
  resolve(seenAt: number): void;
}

/** A member's watch on the ConfigMaps with `labelSelector`, in every namespace. */
export class Sightings {
  readonly member: string;
  private readonly informer: Informer<SampleObject>;
  private readonly waiters = new Set<Waiter>();

  constructor(member: string, kc: KubeConfig, rest: KubeRest, labelSelector: string) {
    this.member = member;
    this.informer = new Informer<SampleObject>({ kc, rest, resource: configMaps, labelSelector, log: createLogger("latency-bench", "warn") });
    const seen = (event: "add" | "update" | "delete") => (obj: SampleObject) => {
      const at = performance.now();
      for (const w of this.waiters) {
        if (!shows(w.expected, event, obj)) continue;
        this.waiters.delete(w);
        w.resolve(at);
      }
    };
    this.informer.on({ add: seen("add"), update: seen("update"), delete: seen("delete") });
  }

  start(): Promise<void> {
    return this.informer.start();
  }

  stop(): void {
    this.informer.stop();
  }

  /** Settles with the time the expected event arrives, or undefined after timeoutMs. */
  expect(expected: Expected, timeoutMs: number): Promise<number | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(undefined);
      }, timeoutMs);
      const waiter: Waiter = {
        expected,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      };
      this.waiters.add(waiter);
    });
  }
}
