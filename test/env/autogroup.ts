// CPU priority of the suite's processes. Linux puts each session (setsid: every job of the runner,
// every process test/env starts) in an autogroup of its own, and shares the CPU between autogroups
// by their nice value, not the processes': so a job is made low priority by setting its
// autogroup's nice (/proc/PID/autogroup), and each process test/env starts takes its parent's.
// Measured here (2026-11-29): two busy autogroups at nice 19 beside two at 0 got 0.1 s of CPU in
// 5 s each, the two at 0 3.5 s each. Without autogroups (another kernel) these do nothing, and
// without CAP_SYS_ADMIN the kernel refuses a second write within 100 ms anywhere on the machine
// (EAGAIN), so the runner uses them only where autogroupsUsable() says so.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";

/** The lowest priority: a companion job's (test/runner/suite-plan.ts). */
export const LOW_NICE = 19;

/** The nice value of a process's autogroup, from "/autogroup-N nice V"; undefined without autogroups. */
export function parseAutogroupNice(text: string): number | undefined {
  const m = /\bnice\s+(-?\d+)/.exec(text);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/**
 * Whether this process can set autogroup priorities as often as the runner needs: the kernel has
 * autogroups, and two writes in a row both succeed (without CAP_SYS_ADMIN the second fails).
 * Writes this process's own value back, which changes nothing.
 */
export function autogroupsUsable(): boolean {
  const own = autogroupNice("self");
  if (own === undefined) return false;
  return setAutogroupNice(process.pid, own) && setAutogroupNice(process.pid, own);
}

/** The nice value of pid's autogroup ("self" for this process), or undefined. */
export function autogroupNice(pid: number | "self"): number | undefined {
  try {
    return parseAutogroupNice(readFileSync(`/proc/${pid}/autogroup`, "utf8"));
  } catch {
    return undefined;
  }
}

/** Sets the nice value of pid's autogroup; false when there is no such process or no autogroups. */
export function setAutogroupNice(pid: number, nice: number): boolean {
  if (!(pid > 0)) return false;
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
    return true;
  } catch {
    return false;
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

/** Sets the autogroup priority of pid and every process under it (the root first, so what it starts next inherits the new value). */
export function setTreeAutogroupNice(pid: number, nice: number): void {
  if (!(pid > 0)) return;
  // processTree lists pid first.
  for (const p of processTree(pid)) setAutogroupNice(p, nice);
}
