// The dashboard's reads inside a member (issue 41): a workload's pods and events, one pod, and a
// pod's log followed live. Each goes through the member API's carrier (the agent's stream) as the
// signed-in user (flotilla:<role>:<user> in the member, so the member's RBAC decides) and lives as
// long as the browser's request: nothing is cached. Only GETs of the paths member-views.ts builds.
import type { ServerResponse } from "node:http";
import type { CoreEvent } from "../../shared/api/core-event.ts";
import type { LabelSelector } from "../../shared/api/types.ts";
import type { AdminRole } from "../../shared/pki.ts";
import type { CallerOut, CarryMember } from "../member-api/member-api-exchange.ts";
import { DashboardError, SECURITY_HEADERS, sendJson } from "./dashboard-server.ts";
import { eventRows, eventSubjects, LIST_LIMIT, logPath, type MemberPod, type MemberPodView, memberQuery, type MemberWorkload, podDetail, podRows, refusalLine, selectorQuery, workloadPath } from "./member-views.ts";

/** Who reads: the dashboard's signed-in user. */
export interface Reader {
  user: string;
  role: AdminRole;
}

/** The largest answer a JSON read holds (a list of LIST_LIMIT pods or events fits). */
const MAX_ANSWER = 8 * 1024 * 1024;
/** How long an agent may take to answer a read at all. */
const HEAD_TIMEOUT_MS = 15_000;

export interface MemberReadsOptions {
  /** What carries a call to a cluster's member API, wherever its agent streams; undefined while the member API is off (--member-api-address): the dashboard reads members only with it. */
  carry: CarryMember | undefined;
  /** Whether the control cluster has this Cluster. */
  known(cluster: string): boolean;
  headTimeoutMs?: number;
}

type Read<T> = { ok: T } | { status: number; line: string };

export class MemberReads {
  private readonly o: MemberReadsOptions;
  constructor(o: MemberReadsOptions) {
    this.o = o;
  }

  /** Whether the dashboard reads inside members at all (the member API is on). */
  get enabled(): boolean {
    return this.o.carry !== undefined;
  }

  /** A workload's pods in one member (from its spec.selector) and the latest events about it and them. */
  async workload(q: URLSearchParams, who: Reader): Promise<MemberWorkload> {
    const p = memberQuery(q, ["cluster", "apiVersion", "kind", "namespace", "name"]);
    if ("error" in p) throw new DashboardError(400, p.error);
    const empty: MemberWorkload = { cluster: p.cluster, pods: [], events: [], truncated: false };
    const carry = this.carrier(p.cluster);
    if (typeof carry === "string") return { ...empty, problem: carry };
    const get = <T>(path: string) => this.get<T>(carry, p.cluster, path, who);
    const events = get<{ items: CoreEvent[]; metadata?: { continue?: string } }>(`/api/v1/namespaces/${p.namespace}/events?limit=${LIST_LIMIT}`);
    const out: MemberWorkload = { ...empty };
    let pods: MemberPod[] = [];
    const path = workloadPath(p);
    if (path === undefined) out.podsProblem = `a ${p.kind} names no pods (only Deployments, StatefulSets, DaemonSets, ReplicaSets and Jobs do)`;
    else {
      const w = await get<{ spec?: { selector?: LabelSelector } }>(path);
      const selector = "ok" in w ? selectorQuery(w.ok.spec?.selector) : undefined;
      if (!("ok" in w)) out.podsProblem = w.line;
      else if (selector === undefined) out.podsProblem = `the ${p.kind} in ${p.cluster} has no pod selector`;
      else {
        const list = await get<{ items: MemberPod[]; metadata?: { continue?: string } }>(`/api/v1/namespaces/${p.namespace}/pods?${new URLSearchParams({ labelSelector: selector, limit: String(LIST_LIMIT) }).toString()}`);
        if ("ok" in list) {
          pods = list.ok.items;
          out.pods = podRows(pods);
          out.truncated ||= (list.ok.metadata?.continue ?? "") !== "";
        } else out.podsProblem = list.line;
      }
    }
    const e = await events;
    if ("ok" in e) {
      out.events = eventRows(e.ok.items, eventSubjects({ kind: p.kind, name: p.name }, pods));
      out.truncated ||= (e.ok.metadata?.continue ?? "") !== "";
    } else out.eventsProblem = e.line;
    // The carrier's own failures (no stream, no answer) say the same for every part: said once.
    if (out.podsProblem !== undefined && out.podsProblem === out.eventsProblem && !("ok" in e) && (e.status >= 500 || e.status === 429)) return { ...empty, problem: e.line };
    return out;
  }

  /** One pod: its phase, node and containers. */
  async pod(q: URLSearchParams, who: Reader): Promise<MemberPodView> {
    const p = memberQuery(q, ["cluster", "namespace", "pod"]);
    if ("error" in p) throw new DashboardError(400, p.error);
    const carry = this.carrier(p.cluster);
    if (typeof carry === "string") return { cluster: p.cluster, problem: carry };
    const r = await this.get<MemberPod>(carry, p.cluster, `/api/v1/namespaces/${p.namespace}/pods/${p.pod}`, who);
    return "ok" in r ? { cluster: p.cluster, pod: podDetail(r.ok) } : { cluster: p.cluster, problem: r.line };
  }

  /**
   * A pod's log, from its last lines on, followed: the member's bytes go to the browser as they
   * come, and the agent is granted more only as the browser's socket takes them, so a slow
   * browser holds at most one window (256 KiB) here. Resolves when the stream is over.
   */
  async log(q: URLSearchParams, who: Reader, res: ServerResponse): Promise<void> {
    const p = memberQuery(q, ["cluster", "namespace", "pod"], ["container"]);
    if ("error" in p) throw new DashboardError(400, p.error);
    const carry = this.carrier(p.cluster);
    if (typeof carry === "string") return sendJson(res, 503, { error: carry });
    const carried = await carry(p.cluster, this.call(logPath(p.namespace, p.pod, p.container), who, "*/*"), logOut(res, p.cluster), this.o.headTimeoutMs ?? 30_000);
    if (carried === undefined) sendJson(res, 503, { error: notConnected(p.cluster) });
  }

  /** What carries calls to the cluster, or the line that says why nothing can be read. */
  private carrier(cluster: string): CarryMember | string {
    if (this.o.carry === undefined) return "reading inside members needs the control plane's member API (--member-api-address)";
    if (!this.o.known(cluster)) throw new DashboardError(404, `cluster ${JSON.stringify(cluster)} not found`);
    return this.o.carry;
  }

  private call(path: string, who: Reader, accept: string) {
    return { method: "GET", path, headers: { accept, "user-agent": "flotilla-dashboard" }, body: Buffer.alloc(0), user: who.user, role: who.role };
  }

  /** One GET, its answer held whole (at most MAX_ANSWER bytes) and parsed, or the line to show instead. */
  private async get<T>(carry: CarryMember, cluster: string, path: string, who: Reader): Promise<Read<T>> {
    const held = heldOut(MAX_ANSWER);
    const headTimeoutMs = this.o.headTimeoutMs ?? HEAD_TIMEOUT_MS;
    // A whole answer within twice the head timeout, or the read is cancelled: a stalled member holds no slot.
    const timer = setTimeout(() => held.abort(), 2 * headTimeoutMs);
    const outcome = await carry(cluster, this.call(path, who, "application/json"), held.out, headTimeoutMs).finally(() => clearTimeout(timer));
    if (outcome === undefined) return { status: 503, line: notConnected(cluster) };
    if (held.timedOut()) return { status: 504, line: `${cluster} did not finish its answer for ${path.split("?")[0]} within ${2 * headTimeoutMs} ms` };
    const body = held.body();
    if (held.tooLarge()) return { status: 507, line: `${cluster} answered more than ${MAX_ANSWER} bytes for ${path.split("?")[0]}` };
    if ("broken" in outcome && outcome.status === 200) return { status: 502, line: `the answer of ${cluster} broke off: ${outcome.broken}` };
    if (outcome.status !== 200) return { status: outcome.status, line: refusalLine(cluster, outcome.status, body) };
    try {
      return { ok: JSON.parse(body) as T };
    } catch {
      return { status: 502, line: `${cluster} answered something other than JSON for ${path.split("?")[0]}` };
    }
  }
}

const notConnected = (cluster: string) => `the agent of ${cluster} is not connected to the control plane (to this replica, or one this replica can reach): its pods and events cannot be read now`;

/** A CallerOut that holds the answer in memory, up to `limit` bytes (past it, the request is cancelled). */
function heldOut(limit: number): { out: CallerOut; body(): string; tooLarge(): boolean; abort(): void; timedOut(): boolean } {
  const chunks: Buffer[] = [];
  const closers: (() => void)[] = [];
  let size = 0;
  let sent = false;
  let over = false;
  let aborted = false;
  const out: CallerOut = {
    get headersSent() {
      return sent;
    },
    writeHead: () => void (sent = true),
    write: (chunk, taken) => {
      if (over) return;
      size += chunk.byteLength;
      if (size > limit) {
        over = true;
        for (const f of closers.splice(0)) f();
        return;
      }
      chunks.push(chunk);
      taken();
    },
    end: () => undefined,
    destroy: () => undefined,
    onClose: (f) => void closers.push(f),
  };
  const abort = () => {
    aborted = true;
    for (const f of closers.splice(0)) f();
  };
  return { out, body: () => Buffer.concat(chunks).toString("utf8"), tooLarge: () => over, abort, timedOut: () => aborted };
}

/** The browser's end of a log stream: a 200 streams the member's bytes as text; anything else becomes `{error}` with the member's status. */
function logOut(res: ServerResponse, cluster: string): CallerOut {
  let status = 0;
  const refusal: Buffer[] = [];
  return {
    get headersSent() {
      return status !== 0 || res.headersSent;
    },
    writeHead: (s) => {
      status = s;
      if (s === 200) res.writeHead(200, { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" });
    },
    // The write's callback runs once the socket took the bytes: only then is the agent granted as many more.
    write: (chunk, taken) => {
      if (status === 200) return void res.write(chunk, () => taken());
      if (refusal.length < 16) refusal.push(chunk);
      taken();
    },
    end: () => (status === 200 ? void res.end() : sendJson(res, status, { error: refusalLine(cluster, status, Buffer.concat(refusal).toString("utf8")) })),
    destroy: () => void res.destroy(),
    onClose: (f) => void res.once("close", f),
  };
}
