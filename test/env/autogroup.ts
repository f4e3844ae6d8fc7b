// CPU priority of the suite's processes. Linux puts each session (setsid: every job of the runner,
// every process test/env starts) in an autogroup of its own, and shares the CPU between autogroups
// by their nice value, not the processes': so a job is made low priority by setting its
// autogroup's nice (/proc/PID/autogroup), and each process test/env starts takes its parent's.
// Measured here (2026-11-29): two busy autogroups at nice 19 beside two at 0 got 0.1 s of CPU in
// 5 s each, the two at 0 3.5 s each. Without autogroups (another kernel) these do nothing, and the
// runner uses them only where autogroupsUsable() says so. Without CAP_SYS_ADMIN (as on CI) the
// kernel takes one write in 100 ms on the whole machine and refuses the others (EAGAIN): each
// write here waits and tries again, and a tree's autogroups are each written once.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";

/** The lowest priority: a companion job's (test/runner/suite-plan.ts). */
export const LOW_NICE = 19;

/** The nice value of a process's autogroup, from "/autogroup-N nice V"; undefined without autogroups. */
export function parseAutogroupNice(text: string): number | undefined {
  const m = /\bnice\s+(-?\d+)/.exec(text);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/**
 * Whether this process can set autogroup priorities: the kernel has autogroups, and a write
 * succeeds. Writes this process's own value back, which changes nothing.
 */
export function autogroupsUsable(): boolean {
  const own = autogroupNice("self");
  if (own === undefined) return false;
  return setAutogroupNice(process.pid, own);
}

/** How long setAutogroupNice goes on trying while the kernel refuses for the 100 ms rate limit. */
export const AUTOGROUP_WRITE_PATIENCE_MS = 3_000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for ms (a write refused for the rate limit is tried again within ~100 ms). */
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** The nice value of pid's autogroup ("self" for this process), or undefined. */
export function autogroupNice(pid: number | "self"): number | undefined {
  try {
    return parseAutogroupNice(readFileSync(`/proc/${pid}/autogroup`, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Sets the nice value of pid's autogroup; false when there is no such process, no autogroups, or
 * the kernel still refused for its rate limit (EAGAIN, without CAP_SYS_ADMIN) after patienceMs.
 */
export function setAutogroupNice(pid: number, nice: number, patienceMs = AUTOGROUP_WRITE_PATIENCE_MS): boolean {
  if (!(pid > 0)) return false;
  const until = Date.now() + patienceMs;
  for (;;) {
    try {
      writeFileSync(`/proc/${pid}/autogroup`, String(nice));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN" || Date.now() >= until) return false;
      // Other processes of the suite may be waiting too: a random wait spreads them over the limit's windows.
      sleepSync(20 + Math.random() * 100);
    }
  }
}

/** The autogroup a process is in ("/autogroup-N"), or undefined. */
export function autogroupOf(pid: number): string | undefined {
  try {
    return /^\S+/.exec(readFileSync(`/proc/${pid}/autogroup`, "utf8"))?.[0];
  } catch {
    return undefined;
  }
}

/**
 * A process just started in a session of its own gets this process's autogroup priority, so a
 * low-priority job's clusters and control planes are low too. Node's spawn returns after the
 * child's exec, so its setsid is done and the write lands on its own autogroup.
 */
export function inheritAutogroupNice(child: number): void {
  const nice = autogroupNice("self");
  if (nice !== undefined && nice !== 0) setAutogroupNice(child, nice);
}

/** From "PID (comm) S PPID …" (/proc/PID/stat, comm may hold spaces and parentheses): the parent pid. */
export function parentPid(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** pid and every process descending from it, from /proc. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    const ppid = parentPid(stat);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const tree: number[] = [];
  const todo = [pid];
  while (todo.length > 0) {
    const p = todo.pop() as number;
    tree.push(p);
    todo.push(...(children.get(p) ?? []));
  }
  return tree;
}

/**
 * Sets the autogroup priority of pid and every process under it (the root first, so what it starts
 * next inherits the new value): one write for each autogroup of the tree not at nice already.
 */
export function setTreeAutogroupNice(pid: number, nice: number): void {
  if (!(pid > 0)) return;
  const done = new Set<string>();
  // processTree lists pid first.
  for (const p of processTree(pid)) {
    const group = autogroupOf(p);
    if (group === undefined || done.has(group)) continue;
    done.add(group);
    if (autogroupNice(p) !== nice) setAutogroupNice(p, nice);
  }
}
