import { readFile } from "node:fs/promises";

async function statusKb(pid: number, field: string): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1];
  if (kb === undefined) throw new Error(`no ${field} for pid ${pid}`);
  return Number(kb) * 1024;
}

/** Resident set size of a process in bytes, from /proc (Linux). */
export function rssBytes(pid: number): Promise<number> {
  return statusKb(pid, "VmRSS");
}

/** Anonymous resident memory of a process in bytes (RssAnon: heaps and buffers, not the mapped binary), from /proc (Linux). */
export function rssAnonBytes(pid: number): Promise<number> {
  return statusKb(pid, "RssAnon");
}

/** Peak resident set size of a process in bytes (VmHWM), from /proc (Linux). */
export function peakRssBytes(pid: number): Promise<number> {
  return statusKb(pid, "VmHWM");
}

/** Formats bytes as MiB with one decimal. */
export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * Resident memory of a process by mapping (Linux /proc/PID/smaps): each file mapped (the node
 * binary, shared libraries) by its path, anonymous memory as "(anonymous)", biggest first.
 */
export async function rssByMapping(pid: number): Promise<[string, number][]> {
  const smaps = await readFile(`/proc/${pid}/smaps`, "utf8");
  const sums = new Map<string, number>();
  let current = "(anonymous)";
  for (const line of smaps.split("\n")) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const path = header[1] ?? "";
      current = path === "" || path.startsWith("[") ? "(anonymous)" : path;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (rss) sums.set(current, (sums.get(current) ?? 0) + Number(rss[1]) * 1024);
  }
  return [...sums].sort((a, b) => b[1] - a[1]);
}

/** CPU time a process has used so far (user + system), in seconds, from /proc/PID/stat (Linux). */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // After the command name (in parentheses, which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
}

/** CPU seconds the processes have used so far, summed; a process gone counts 0. */
export async function totalCpuSeconds(pids: readonly number[]): Promise<number> {
  return (await Promise.all(pids.map((p) => cpuSeconds(p).catch(() => 0)))).reduce((a, b) => a + b, 0);
}

/** USER_HZ: the unit of /proc/PID/stat's times, 100 on every Linux architecture Node.js runs on. */
const CLOCK_TICKS_PER_S = 100;
