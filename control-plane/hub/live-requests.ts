// Live reads through an agent (flotillactl diff): requests in flight on one stream, each answered
// once, or failed by its timeout or by the stream closing.
import { randomUUID } from "node:crypto";
import type { ControlMessage, LiveResponse, ResourceIdentifier } from "../../shared/gen/flotilla/v1alpha1/agent.ts";

/** Diffs one cluster may have in flight at once. */
const MAX_LIVE_REQUESTS = 16;

export class LiveRequests {
  /** LiveRequests waiting for the agent's answer, by request id. */
  private readonly pending = new Map<string, (res: LiveResponse) => void>();
  private readonly cluster: string;
  private readonly write: (m: ControlMessage) => void;

  constructor(cluster: string, write: (m: ControlMessage) => void) {
    this.cluster = cluster;
    this.write = write;
  }

  request(resources: ResourceIdentifier[], timeoutMs: number): Promise<Buffer[]> {
    if (this.pending.size >= MAX_LIVE_REQUESTS) return Promise.reject(new Error("too many diffs in flight for this cluster; retry"));
    const requestId = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        reject(new Error(`the agent of ${this.cluster} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(requestId, (res) => {
        clearTimeout(timer);
        if (res.error !== "") reject(new Error(`the agent of ${this.cluster}: ${res.error}`));
        else if (res.objects.length !== resources.length) reject(new Error(`the agent of ${this.cluster} answered ${res.objects.length} objects for ${resources.length}`));
        else resolve(res.objects.map((o) => Buffer.from(o)));
      });
      this.write({ kind: { $case: "liveRequest", value: { requestId, resources } } });
    });
  }

  /** The agent's answer; one nobody waits for (timed out, or made up) is dropped. */
  answered(res: LiveResponse): void {
    const waiting = this.pending.get(res.requestId);
    this.pending.delete(res.requestId);
    waiting?.(res);
  }

  /** The stream closed: every request in flight fails. */
  closeAll(): void {
    for (const answer of this.pending.values()) answer({ requestId: "", objects: [], error: "the agent's stream closed" });
    this.pending.clear();
  }
}
