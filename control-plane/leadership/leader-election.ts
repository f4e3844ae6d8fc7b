import type { Logger } from "pino";
import { isKubeStatus, type KubeRest } from "../../shared/kube-rest.ts";
import { decideLease, liveHolder, type LeaseObservation, leaseRecord, type LeaseSpec, observeLease } from "./lease-decision.ts";

export interface LeaderElectionOptions {
  rest: KubeRest;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  /** A leader that could not renew for this long steps down. */
  renewDeadlineMs: number;
  retryPeriodMs: number;
  log: Logger;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
  /** Each successful renewal (or acquisition), at the time the round began (this replica's clock). */
  onRenewed?: (at: number) => void;
  /** Each change of the Lease as read (any renewal, hand-over or release): its holder and until when it holds by this replica's clock. */
  onObserved?: (o: LeaseObservation) => void;
}

interface Lease {
  metadata: { resourceVersion?: string };
  spec?: LeaseSpec;
}

/** Lease-based leader election (client-go's semantics): one replica runs the controllers. */
export class LeaderElector {
  private readonly o: LeaderElectionOptions;
  private leading = false;
  private lastRenew = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Steps down when the renew deadline passes, even while a request hangs. */
  private watchdog: NodeJS.Timeout | undefined;
  /** The lease as last seen, and when this replica first saw it so (its own clock). */
  private observed = { record: "", at: 0 };
  /** Its holder as last observed (undefined before the first read). */
  private observation: LeaseObservation | undefined;
  private stopped = false;
  /** Set once this replica led and missed its renew deadline: it writes nothing any more. */
  private deposed = false;

  constructor(opts: LeaderElectionOptions) {
    this.o = opts;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * The Lease's holder as this replica last read it, while it holds by this replica's clock (as
   * decideLease judges expiry); undefined when none, released, expired or not read yet. Whom this
   * replica lets follow its status reports (peers/follow-admission.ts).
   */
  observedHolder(now = Date.now()): string | undefined {
    return liveHolder(this.observation, now);
  }

  /**
   * Why this replica may not write to the control cluster now, or undefined. A leader past its
   * renew deadline may already have been replaced; it is judged by the clock at the moment of
   * each write, so a process that resumes from a freeze is fenced before any timer (the
   * watchdog) or I/O callback of its runs. Once fenced, always fenced: the process steps down
   * and exits, and a fresh one competes again.
   */
  writeFence(): string | undefined {
    if (!this.deposed && this.leading && Date.now() - this.lastRenew > this.o.renewDeadlineMs) this.deposed = true;
    return this.deposed ? "this replica led and missed its renew deadline" : undefined;
  }

  async start(): Promise<void> {
    await this.o.rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: this.o.namespace } } }).catch((err: unknown) => {
      if (!isKubeStatus(err, 409)) throw err;
    });
    void this.tick();
  }

  /** Stops competing; a leader releases the lease so another replica takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.watchdog) clearTimeout(this.watchdog);
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = await this.o.rest.get<Lease>(this.path());
      if (lease.spec?.holderIdentity === this.o.identity) {
        await this.o.rest.request("PUT", this.path(), { body: { ...this.body(lease.metadata.resourceVersion), spec: { ...lease.spec, holderIdentity: "" } } });
      }
    } catch (err) {
      this.o.log.warn({ err: String(err) }, "releasing the leader lease failed; it expires by itself");
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.round();
    } catch (err) {
      this.o.log.debug({ err: String(err) }, "leader election round failed");
    }
    this.checkDeadline();
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.o.retryPeriodMs);
  }

  /** A leader that has not renewed within the renew deadline steps down (before its lease can expire). */
  private checkDeadline(): void {
    if (this.leading && Date.now() - this.lastRenew > this.o.renewDeadlineMs) {
      this.deposed = true;
      this.leading = false;
      if (this.watchdog) clearTimeout(this.watchdog);
      this.o.log.error("could not renew the leader lease in time; stepping down");
      this.o.onStoppedLeading();
    }
  }

  private armWatchdog(): void {
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => this.checkDeadline(), this.o.renewDeadlineMs + 1);
    this.watchdog.unref();
  }

  /** Each election request may take only part of the renew deadline, so a round ends within it. */
  private get requestTimeoutMs(): number {
    return Math.max(1, Math.floor(this.o.renewDeadlineMs / 2));
  }

  private async round(): Promise<void> {
    let lease: Lease | undefined;
    try {
      lease = await this.o.rest.request<Lease>("GET", this.path(), { timeoutMs: this.requestTimeoutMs });
    } catch (err) {
      if (!isKubeStatus(err, 404)) throw err;
    }
    const now = Date.now();
    const record = leaseRecord(lease?.spec);
    if (record !== this.observed.record || this.observation === undefined) {
      this.observed = { record, at: now };
      this.observation = observeLease(lease?.spec, now, this.o.leaseDurationMs);
      this.o.onObserved?.(this.observation);
    }
    const d = decideLease(lease?.spec, this.o.identity, now, this.o.leaseDurationMs, this.observed.at);
    if (d.action === "wait") {
      if (this.leading) {
        this.deposed = true;
        this.leading = false;
        this.o.log.error({ holder: d.holder }, "another replica holds the lease; stepping down");
        this.o.onStoppedLeading();
      }
      return;
    }
    if (d.action === "create") {
      await this.o.rest.request("POST", `/apis/coordination.k8s.io/v1/namespaces/${this.o.namespace}/leases`, { body: { ...this.body(), spec: d.spec }, timeoutMs: this.requestTimeoutMs });
    } else {
      await this.o.rest.request("PUT", this.path(), { body: { ...this.body(lease?.metadata.resourceVersion), spec: d.spec }, timeoutMs: this.requestTimeoutMs });
    }
    // A round that took past the deadline does not count: the lease may be another's by now.
    if (this.leading && Date.now() - this.lastRenew > this.o.renewDeadlineMs) return;
    this.lastRenew = now;
    this.o.onRenewed?.(now);
    this.armWatchdog();
    if (!this.leading) {
      this.leading = true;
      this.o.log.info({ lease: `${this.o.namespace}/${this.o.name}`, identity: this.o.identity }, "became the leader");
      this.o.onStartedLeading();
    }
  }

  private path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.o.namespace}/leases/${this.o.name}`;
  }

  private body(resourceVersion?: string) {
    return {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: this.o.name, namespace: this.o.namespace, ...(resourceVersion ? { resourceVersion } : {}) },
    };
  }
}
