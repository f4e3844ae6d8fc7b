// Issue 25: how many agents a replica admits per second (new streams: the Hello and its resync
// are what cost; and, issue 42, new connections before their TLS handshake, from the same bucket).
// A reconnect storm of thousands of agents would otherwise run every handshake and resync at once,
// starving heartbeats, controllers and (before leadership/lease-thread.ts) the leader's Lease.
// Pure: a token bucket, and for each refused agent a slot of its own in the queue behind it, sent
// back as the delay after which it should come again (retry-after-ms), so that refused agents
// return one by one at the admission rate instead of all at once.

import { RETRY_AFTER_JITTER } from "../../shared/reconnect.ts";

/** Admissions per second and the burst admitted at once; perSecond 0: no limit. */
export interface AdmissionRate {
  perSecond: number;
  burst: number;
}

/** The gate's state: tokens at `at`, and when the queue of refused agents sent away ends. */
export interface AdmissionState {
  tokens: number;
  at: number;
  backlogUntil: number;
  /** Issue 42: until when connections wait behind the refused streams (their slots, plus the jitter an agent adds to its retry-after). */
  reservedUntil?: number;
}

/** The longest delay an agent is told to wait: beyond it, slots are not reserved any more. */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

export type Admission = { admit: true } | { admit: false; retryAfterMs: number };

/** A full bucket at `now`. */
export function initialAdmission(rate: AdmissionRate, now: number): AdmissionState {
  return { tokens: rate.burst, at: now, backlogUntil: now };
}

/** The tokens in the bucket at `now`. */
function tokensAt(state: AdmissionState, now: number, rate: AdmissionRate): number {
  return Math.min(rate.burst, state.tokens + (Math.max(0, now - state.at) * rate.perSecond) / 1000);
}

/** Whether an agent arriving at `now` is admitted; if not, after how long it should come again. */
export function admitAgent(state: AdmissionState, now: number, rate: AdmissionRate): { state: AdmissionState; admission: Admission } {
  if (rate.perSecond <= 0) return { state, admission: { admit: true } };
  const tokens = tokensAt(state, now, rate);
  if (tokens >= 1) return { state: { ...state, tokens: tokens - 1, at: now }, admission: { admit: true } };
  // The next free slot: behind every agent already sent away, or when the next token is due.
  const slot = 1000 / rate.perSecond;
  const nextToken = now + (1 - tokens) * slot;
  const backlogUntil = Math.min(now + MAX_RETRY_AFTER_MS, Math.max(state.backlogUntil + slot, nextToken));
  // The agent comes back within RETRY_AFTER_JITTER of its retry-after: its token is kept from connections until then.
  const reservedUntil = Math.max(state.reservedUntil ?? 0, backlogUntil + (backlogUntil - now) * RETRY_AFTER_JITTER + slot);
  return { state: { tokens, at: now, backlogUntil, reservedUntil }, admission: { admit: false, retryAfterMs: Math.ceil(backlogUntil - now) } };
}

/**
 * Issue 42: a new connection waiting below TLS (gated-listener.ts) takes a token of the same bucket
 * as streams: waitMs 0 when it may go on to its handshake now, else how long until the next token.
 * It reserves no slot: it waits in the listener's queue, in order, and asks again then.
 */
export function admitConnection(state: AdmissionState, now: number, rate: AdmissionRate): { state: AdmissionState; waitMs: number } {
  if (rate.perSecond <= 0) return { state, waitMs: 0 };
  // The tokens until the last refused stream is back are the refused streams' (retry-after): connections wait behind them.
  const reserved = Math.max(state.backlogUntil, state.reservedUntil ?? 0);
  if (reserved > now) return { state, waitMs: Math.ceil(reserved - now) };
  const tokens = tokensAt(state, now, rate);
  if (tokens >= 1) return { state: { ...state, tokens: tokens - 1, at: now }, waitMs: 0 };
  return { state: { ...state, tokens, at: now }, waitMs: Math.ceil(((1 - tokens) * 1000) / rate.perSecond) };
}

/** Issue 42: connections wait below TLS for at most about this long; the queue holds this many seconds of admissions. */
export const MAX_CONNECTION_WAIT_MS = 60_000;

/** How many connections may wait below TLS at once (a burst, and MAX_CONNECTION_WAIT_MS at the rate); more are closed before any handshake. */
export function maxWaitingConnections(rate: AdmissionRate): number {
  return Math.max(1, Math.ceil(rate.burst + (rate.perSecond * MAX_CONNECTION_WAIT_MS) / 1000));
}

/** How long until every agent sent away so far is due back (0: none waits). */
export function admissionBacklogMs(state: AdmissionState, now: number): number {
  return Math.max(0, state.backlogUntil - now);
}

/**
 * The window over which an agent should spread its first reconnect attempt once its stream ends,
 * sent in SyncDone: how long this gate takes to admit the whole fleet again (every Cluster, as a
 * fleet that lost one replica comes back to the others), at most capMs: a lone agent whose stream
 * broke waits up to this long too, and must be back within the cluster failure threshold (the
 * gate's retry-after spreads whatever comes faster). 0 when there is no limit.
 */
export function reconnectSpreadMs(clusters: number, rate: AdmissionRate, capMs: number): number {
  if (rate.perSecond <= 0) return 0;
  return Math.min(capMs, MAX_RETRY_AFTER_MS, Math.ceil((Math.max(0, clusters - rate.burst) * 1000) / rate.perSecond));
}

/** How long an agent whose stream ended here counts as lost (not back yet) for lostBacklogMs. */
export const LOST_WINDOW_MS = 5 * 60_000;

/**
 * How long the agents this replica lost within LOST_WINDOW_MS (their streams ended, and they have
 * not said Hello again) need to be admitted again at the gate's rate, when they are more than one
 * burst: a storm, whose agents may be outside the gate's queue (a connection reset sends an agent
 * to its own backoff). 0 for fewer: a few lost agents, a dead cluster among them, are judged as ever.
 */
export function lostBacklogMs(lost: number, rate: AdmissionRate): number {
  if (rate.perSecond <= 0 || lost <= rate.burst) return 0;
  return Math.ceil((lost * 1000) / rate.perSecond);
}
