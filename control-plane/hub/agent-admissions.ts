// One replica's admission of agents (issues 25 and 42): one token bucket for both ways in, a new
// connection before its TLS handshake (gated-listener.ts) and a new stream after it (hub.ts), so
// that the replica takes --max-agent-admissions-per-second agents in all, not that many twice. The
// first stream of a connection the listener admitted has paid already. The decisions are in
// admission-gate.ts; this holds the state.
import { type Admission, type AdmissionRate, type AdmissionState, admissionBacklogMs, admitAgent, admitConnection, initialAdmission, LOST_WINDOW_MS, lostBacklogMs } from "./admission-gate.ts";

export class AgentAdmissions {
  readonly rate: AdmissionRate;
  private state: AdmissionState;
  /** When each agent whose stream ended here was lost (until its next Hello here): a storm's size. */
  private readonly lostAt = new Map<string, number>();
  /** Connections the listener admitted whose first stream has not come yet, by peer (address:port, as grpc-js's getPeer()). */
  private readonly paid = new Set<string>();
  /** Streams refused (told to come back later), for metrics. */
  refused = 0;

  /** rate: default no limit. */
  constructor(rate: AdmissionRate = { perSecond: 0, burst: 0 }, now = Date.now()) {
    this.rate = rate;
    this.state = initialAdmission(rate, now);
  }

  /** Whether admissions are limited at all. */
  get limited(): boolean {
    return this.rate.perSecond > 0;
  }

  /** A new stream from peer: admitted (free when it is the first on a connection the listener admitted), or told when to come again. */
  admitStream(peer: string, now = Date.now()): Admission {
    if (this.paid.delete(peer)) return { admit: true };
    const admitted = admitAgent(this.state, now, this.rate);
    this.state = admitted.state;
    if (!admitted.admission.admit) this.refused++;
    return admitted.admission;
  }

  /** A connection from peer waiting below TLS: 0 when it may go on to its handshake now (its first stream is paid), else the ms until the next token. */
  admitConnection(peer: string, now = Date.now()): number {
    const admitted = admitConnection(this.state, now, this.rate);
    this.state = admitted.state;
    if (admitted.waitMs === 0) this.paid.add(peer);
    return admitted.waitMs;
  }

  /** A connection closed: what it paid for and did not use is gone with it. */
  connectionClosed(peer: string): void {
    this.paid.delete(peer);
  }

  /** The cluster's stream ended here. */
  lost(cluster: string, now = Date.now()): void {
    this.lostAt.delete(cluster);
    this.lostAt.set(cluster, now);
  }

  /** The cluster said Hello here. */
  back(cluster: string): void {
    this.lostAt.delete(cluster);
  }

  /**
   * How long until the storm this replica is in has come back (0: none): every agent the gate sent
   * away is admitted, and the agents lost here, when more than a burst, are admitted again. The
   * connections waiting below TLS are not counted: nothing proves them agents (a client without a
   * certificate could hold one open to keep every silent cluster Ready); a storm of this replica's
   * own agents is counted by the agents it lost.
   */
  backlogMs(now = Date.now()): number {
    for (const [cluster, at] of this.lostAt) {
      // Oldest first (insertion order): the rest are younger.
      if (now - at <= LOST_WINDOW_MS) break;
      this.lostAt.delete(cluster);
    }
    return Math.max(admissionBacklogMs(this.state, now), lostBacklogMs(this.lostAt.size, this.rate));
  }
}
