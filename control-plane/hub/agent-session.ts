import { type ServerDuplexStream, status as GrpcStatus } from "@grpc/grpc-js";
import type { Logger } from "pino";
import type { AgentMessage, ControlMessage, Hello } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { earlierOfHello } from "../../shared/earlier-registration.ts";
import { ListDeliveries, type ListName } from "./hashed-delivery.ts";
import { CoalescingOutbox } from "../../shared/coalescing-outbox.ts";
import { DEFAULT_INBOUND_RATE, InboundGate, inboundBucket } from "./inbound-gate.ts";
import { checkHello } from "./message-bounds.ts";
import { AgentRequests } from "./agent-requests.ts";
import { type Decision, DELETION_HELD, type Intent, OutboundDeletions } from "./outbound-deletions.ts";
import { type AgentSessionOptions, bytesReceived, bytesSent, heldReport, passExports, type SessionEvents, type SessionStats } from "./session-events.ts";
import { planResync } from "./resync.ts";
import { workUpsertMessage } from "./encoded-messages.ts";
import type { WorkStore } from "../works/work-store.ts";
import { HUB_FEATURES } from "../../shared/protocol.ts";
const SYNC_DONE = "\u0000sync-done";

/**
 * One agent's stream on the hub. After the Hello it sends only what differs from what the agent
 * holds, then SyncDone, then live changes. Pending changes are a set of keys (the newest Work is
 * read when there is room to send), so a slow agent costs one entry per Work, never a growing
 * backlog of messages: back-pressure from write() pauses the sender until 'drain'.
 */
export class AgentSession {
  readonly cluster: string;
  readonly stats: SessionStats = { upserts: 0, deletes: 0, manifestBytes: 0, statuses: 0, customizations: 0, metricsWanted: 0, workloadMetrics: 0, serviceExports: 0 };
  private readonly call: ServerDuplexStream<AgentMessage, ControlMessage>;
  private readonly works: WorkStore;
  private readonly events: SessionEvents;
  private readonly log: Logger;
  private readonly outbox = new CoalescingOutbox((key) => {
    const m = this.message(key);
    return m === undefined || this.call.write(m);
  });
  private closed = false;
  /** What the agent may be told to delete: the Works it holds, the intents, the brake. */
  readonly deletions: OutboundDeletions;
  /** What callers ask of the agent through the hub: live reads, member API requests (agent-requests.ts). */
  readonly requests: AgentRequests;
  private hello: Hello | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly onClosed: () => void;
  private readonly onHello: () => void;
  private readonly gate: InboundGate;
  private resumeTimer: NodeJS.Timeout | undefined;
  private readonly helloTimer: NodeJS.Timeout;
  /** The whole lists (customizations, MetricsWanted), read when there is room to send. */
  private readonly lists: ListDeliveries;

  constructor(opts: AgentSessionOptions) {
    const wanted = opts.metricsWanted ?? (() => ({ contentHash: "", workloads: [] }));
    this.lists = new ListDeliveries({ customizations: opts.customizations ?? (() => ({ contentHash: "", customizations: [] })), metricsWanted: wanted }, this.stats);
    this.cluster = opts.cluster;
    this.call = opts.call;
    this.works = opts.works;
    this.events = opts.events;
    this.log = opts.log;
    this.onClosed = opts.onClosed;
    this.onHello = opts.onHello;
    this.requests = new AgentRequests(this.cluster, (m) => this.call.write(m), opts.memberApiMaxRequests ?? 64);
    this.deletions = new OutboundDeletions({
      cluster: this.cluster,
      intent: (key) => this.intent(key), brakeKey: (key) => this.works.brakeKey(key),
      ...(opts.deletionBudget ? { budget: opts.deletionBudget } : {}),
      ...(opts.deletionWindow ? { window: opts.deletionWindow } : {}),
      onHeld: (key, message) => {
        this.log.warn({ work: key, held: this.deletions.heldCount }, "deletion held by the brake");
        this.events.deletionHeld?.(this.cluster, key);
        this.events.status(this.cluster, heldReport(key, message));
      },
    });
    this.gate = new InboundGate({
      cluster: this.cluster,
      log: this.log,
      bucket: opts.bucket ?? inboundBucket(DEFAULT_INBOUND_RATE),
      inStore: (key) => this.works.get(this.cluster, key) !== undefined,
      recorded: (key) => this.events.recorded?.(this.cluster, key) ?? false,
      ...(opts.maxClusterNodes === undefined ? { wanted } : { wanted, maxNodes: opts.maxClusterNodes }),
    });
    const helloMs = opts.helloTimeoutMs ?? 30_000;
    this.helloTimer = setTimeout(() => this.fail(GrpcStatus.DEADLINE_EXCEEDED, `no Hello within ${helloMs} ms`), helloMs);
    this.call.on("data", (m: AgentMessage) => {
      try {
        this.receive(m);
      } catch (err) {
        // A bug of ours must cost this stream only, never the process (every other agent's).
        this.log.error({ err: err instanceof Error ? err.message : String(err) }, "failed on an agent message");
        this.fail(GrpcStatus.INTERNAL, "the hub failed on this message");
      }
      // Member API frames of a request in flight are bounded by its window, not by the message rate.
      if (m.kind?.$case !== "memberApiResponse" || !this.requests.expects(m.kind.value.streamId)) this.throttle();
    });
    this.call.on("end", () => this.close());
    this.call.on("error", (err: Error) => {
      this.log.debug({ err: err.message }, "agent stream error");
      this.close();
    });
    this.call.on("cancelled", () => this.close());
  }

  /** Works waiting for room on the stream (at most one entry per Work). */
  get pending(): number {
    return this.outbox.size;
  }

  /** Ends the stream with a gRPC status (e.g. a newer stream for the same cluster replaced it). */
  fail(code: GrpcStatus, details: string): void {
    if (this.closed) return;
    this.log.warn({ code, details }, "closing agent stream");
    this.call.emit("error", { code, details });
    this.close();
  }

  /** Stops reading while the token bucket is in debt: what the agent sends meanwhile waits in HTTP/2 flow control, not here. */
  private throttle(): void {
    const wait = this.gate.arrived();
    if (wait <= 0 || this.closed || this.resumeTimer !== undefined) return;
    this.call.pause();
    this.resumeTimer = setTimeout(() => {
      this.resumeTimer = undefined;
      if (!this.closed) this.call.resume();
    }, wait);
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.resumeTimer);
    clearTimeout(this.helloTimer);
    this.requests.closeAll();
    this.unsubscribe?.();
    this.outbox.close();
    this.onClosed();
  }

  private receive(m: AgentMessage): void {
    if (this.closed) return;
    const kind = m.kind;
    if (this.hello === undefined) {
      if (kind?.$case !== "hello") {
        this.fail(GrpcStatus.INVALID_ARGUMENT, "the first message on a stream must be a Hello");
        return;
      }
      this.start(kind.value);
      return;
    }
    switch (kind?.$case) {
      case "workStatus": {
        bytesReceived.inc({ cluster: this.cluster }, kind.value.manifests.reduce((n, m) => n + m.status.byteLength, 0));
        let status = this.gate.workStatus(kind.value);
        if (status === undefined) break;
        // A held deletion keeps saying so, whatever the agent reports meanwhile.
        if (this.deletions.isHeld(status.workKey)) status = { ...status, reason: DELETION_HELD, message: this.deletions.heldMessage(status.workKey) };
        this.stats.statuses++;
        this.events.status(this.cluster, status);
        break;
      }
      case "heartbeat": {
        const { heartbeat, problems } = this.gate.heartbeat(kind.value);
        this.events.heartbeat(this.cluster, heartbeat, problems);
        break;
      }
      case "contentRequest":
        // Marked keys are sent as WorkUpserts with the newest contents when the stream has room.
        for (const key of this.gate.contentRequest(kind.value)) this.outbox.mark(key);
        break;
      case "liveResponse":
      case "memberApiResponse":
        this.requests.answered(kind);
        break;
      case "workloadMetrics": {
        const report = this.gate.workloadMetrics(kind.value);
        if (report !== undefined && ++this.stats.workloadMetrics) this.events.workloadMetrics?.(this.cluster, report);
        break;
      }
      case "serviceExport":
      case "serviceExportsSynced":
        if (passExports(this.gate, this.events, this.cluster, kind)) this.stats.serviceExports++;
        break;
      case "hello":
        this.fail(GrpcStatus.INVALID_ARGUMENT, "Hello may be sent only once per stream");
        break;
      default:
        this.fail(GrpcStatus.INVALID_ARGUMENT, "empty or unknown agent message");
    }
  }

  private start(hello: Hello): void {
    clearTimeout(this.helloTimer);
    const checked = checkHello(hello);
    if (!checked.ok) {
      this.fail(GrpcStatus.INVALID_ARGUMENT, `refusing the Hello: ${checked.reason}`);
      return;
    }
    if (hello.clusterName !== this.cluster) {
      this.fail(
        GrpcStatus.PERMISSION_DENIED,
        `this certificate is for cluster ${JSON.stringify(this.cluster)}, not ${JSON.stringify(hello.clusterName)}`,
      );
      return;
    }
    this.hello = hello;
    this.requests.opened(hello);
    this.onHello();
    if (this.closed) return;
    this.events.holds?.(this.cluster, new Set(Object.keys(hello.workHashes)));
    for (const key of Object.keys(hello.workHashes)) this.deletions.holding(key);
    // An agent from before versioned Hellos (protocol 0) declares nothing.
    this.deletions.agentDeclared(hello.protocolVersion >= 2 ? hello.features : []);
    for (const key of this.lists.hello(hello)) this.outbox.mark(key);
    const hub = this.works.hashes(this.cluster);
    // What the placement gives this registration now is its own once sent again (even at the same
    // hash: the agent's record then says so too); until then it is held as an earlier one's.
    const earlier = earlierOfHello(hello);
    this.deletions.registeredEarlier(earlier);
    for (const k of earlier) if (hub.has(k)) this.outbox.mark(k);
    const plan = planResync(hello.needsContents ? {} : hello.workHashes, hub);
    // An agent that lost its manifests still tells what it applied, so that Works gone meanwhile are
    // deleted; only those the user's intent removed (DESIGN §11), not those merely missing here.
    const absent = hello.needsContents ? Object.keys(hello.workHashes).filter((k) => !hub.has(k)).sort() : plan.deletes;
    const deletes = absent.filter((k) => this.intent(k) !== undefined);
    if (deletes.length < absent.length) this.log.info({ kept: absent.length - deletes.length }, "keeping Works the hub lacks without an intent to delete them");
    for (const key of [...plan.upserts, ...deletes]) this.outbox.mark(key);
    this.outbox.mark(SYNC_DONE);
    this.log.info(
      { agentVersion: hello.agentVersion, held: Object.keys(hello.workHashes).length, upserts: plan.upserts.length, deletes: deletes.length },
      "agent connected",
    );
    this.unsubscribe = this.works.subscribe(this.cluster, (key) => this.outbox.mark(key));
    this.call.on("drain", () => this.outbox.drained());
  }

  /**
   * Judges again every Work the agent holds that the store lacks (or those of `keys`): an absence
   * kept earlier (the cluster was not Ready, or just Ready again; its binding was being written
   * ahead of the informer) may be an intent to delete now, or the Work back.
   */
  recheckAbsent(keys: Iterable<string> = this.deletions.holds): void {
    if (this.closed || this.hello === undefined) return;
    for (const key of keys) if (this.deletions.holds.has(key) && this.works.get(this.cluster, key) === undefined) this.outbox.mark(key);
  }

  /** Whether a workload stands in its dependencies' way here: the agent holds its Work (not sent its removal), or a person kept it. */
  holdsWork(key: string): boolean {
    return this.deletions.inTheWay(key);
  }

  /** Judges again every removal that waits for a workload to go first. */
  recheckWaiting(): void {
    if (this.closed || this.hello === undefined) return;
    for (const key of this.deletions.waiting()) this.outbox.mark(key);
  }

  /** A list changed (the customizations, or this cluster's MetricsWanted): sent if the agent takes it and holds another. */
  listChanged(name: ListName): void {
    const key = this.closed || this.hello === undefined ? undefined : this.lists.changed(name);
    if (key !== undefined) this.outbox.mark(key);
  }

  /** A person decided on the deletions held for this cluster: they are judged again, with that answer. */
  decide(decision: Decision): void {
    if (this.closed || this.hello === undefined) return;
    for (const key of this.deletions.decide(decision)) this.outbox.mark(key);
  }

  private intent(key: string): Intent | undefined {
    return this.events.deletionIntent === undefined ? { reason: "NotInHubSet", preserve: false } : this.events.deletionIntent(this.cluster, key);
  }

  /** The message for a key, or undefined when there is nothing to send (an absent Work nobody removed). */
  private message(key: string): ControlMessage | undefined {
    if (key === SYNC_DONE) {
      return { kind: { $case: "syncDone", value: { workCount: this.works.keys(this.cluster).length, reconnectSpreadMs: this.events.reconnectSpreadMs?.(), hubFeatures: [...HUB_FEATURES] } } };
    }
    if (this.lists.owns(key)) return this.lists.message(key);
    const work = this.works.get(this.cluster, key);
    if (work === undefined) {
      const intent = this.deletions.deleteFor(key);
      if (intent === undefined) return undefined;
      // What waited for this Work to leave first (a dependency after its workload) is judged again.
      for (const k of this.deletions.waitingOn(key)) this.outbox.mark(k);
      this.stats.deletes++;
      return { kind: { $case: "workDelete", value: { workKey: key, preserve: intent.preserve, reason: intent.reason } } };
    }
    // Works an older agent would misread (issue 40's imports) wait for one that declares their feature.
    if (!this.works.sendable(key, this.hello?.features ?? [])) return undefined;
    this.stats.upserts++;
    this.deletions.holding(key);
    this.gate.sent(key);
    for (const m of work.manifests) this.stats.manifestBytes += m.byteLength;
    bytesSent.inc({ cluster: this.cluster }, work.manifests.reduce((n, m) => n + m.byteLength, 0));
    // Every cluster sent this Work (the same manifests array) is written the same bytes, encoded once.
    return workUpsertMessage({ workKey: key, contentHash: work.hash, manifests: work.manifests, conflictResolution: work.conflictResolution, preserveResourcesOnDeletion: work.preserveResourcesOnDeletion === true });
  }
}
