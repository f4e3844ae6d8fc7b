// What the hub asks of one agent on a caller's behalf: live reads (flotillactl diff) and the
// member API's requests (issue 41), each answered over the agent's stream, and all failed when the
// stream closes.
import type { ControlMessage, Hello, LiveResponse, MemberApiResponse, ResourceIdentifier } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { FEATURES } from "../../shared/protocol.ts";
import { LiveRequests } from "./live-requests.ts";
import { type MemberApiCall, type MemberApiHandle, type MemberApiSink, MemberApiStreams } from "./member-api-streams.ts";

export class AgentRequests {
  private readonly cluster: string;
  private readonly live: LiveRequests;
  private readonly memberApi: MemberApiStreams;
  /** The stream's Hello, once the hub took it; undefined before it and once the stream closed. */
  private hello: Hello | undefined;

  /** `memberApiMax`: member API requests this cluster may have in flight at once. */
  constructor(cluster: string, write: (m: ControlMessage) => void, memberApiMax: number) {
    this.cluster = cluster;
    this.live = new LiveRequests(cluster, write);
    this.memberApi = new MemberApiStreams(write, memberApiMax);
  }

  /** The hub took the stream's Hello: requests may go. */
  opened(hello: Hello): void {
    this.hello = hello;
  }

  /** Asks the agent for its live objects (flotillactl diff); rejects after timeoutMs, or at once while the stream is not open. */
  requestLive(resources: ResourceIdentifier[], timeoutMs = 10_000): Promise<Buffer[]> {
    if (this.hello === undefined) return Promise.reject(new Error("the agent's stream is not open"));
    return this.live.request(resources, timeoutMs);
  }

  /**
   * Carries a caller's request to the member's apiserver: an Error when the agent cannot take it
   * (no Hello yet, or too old), undefined when this cluster has its most requests in flight.
   */
  requestMember(call: MemberApiCall, sink: MemberApiSink): MemberApiHandle | Error | undefined {
    const hello = this.hello;
    if (hello === undefined) return new Error("the agent's stream is not open");
    if (hello.protocolVersion < 2 || !hello.features.includes(FEATURES.memberApi)) {
      return new Error(`the agent of ${this.cluster} (${hello.agentVersion || "unknown version"}) does not serve the member API; upgrade it`);
    }
    return this.memberApi.start(call, sink);
  }

  /** An answer from the agent; one nobody waits for (timed out, cancelled, or made up) is dropped. */
  answered(kind: { $case: "liveResponse"; value: LiveResponse } | { $case: "memberApiResponse"; value: MemberApiResponse }): void {
    if (kind.$case === "liveResponse") this.live.answered(kind.value);
    else this.memberApi.received(kind.value);
  }

  /** Whether a member API frame belongs to a request in flight: only those are bounded by a window, others count against the message rate. */
  expects(streamId: number): boolean {
    return this.memberApi.has(streamId);
  }

  /** The stream closed: every request in flight fails. */
  closeAll(): void {
    this.hello = undefined;
    this.live.closeAll();
    this.memberApi.closeAll("the agent's stream closed");
  }
}
