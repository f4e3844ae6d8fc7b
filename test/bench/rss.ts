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

/** Peak resident set size of a process in bytes (VmHWM), from /proc (Linux). */
export function peakRssBytes(pid: number): Promise<number> {
  return statusKb(pid, "VmHWM");
}

/** Formats bytes as MiB with one decimal. */
export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
