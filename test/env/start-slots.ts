// Fleet starts across parallel test files take a slot: starting etcd, kube-apiservers and
// controllers is the most CPU-hungry thing a test does, and on a small machine too many at once
// time out. The suite runner (test/runner/run.ts) sets FLOTILLA_TEST_SLOT_DIR and
// FLOTILLA_TEST_START_SLOTS; a file run on its own has no slots and starts at once.
//
// A slot is an flock(1) on <dir>/slot-<i>, held by a small child process (`flock FILE cat`) for as
// long as its stdin is open: closing it, or this process dying, frees the slot.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

/** Where the slots are and how many, from the environment; undefined when starts are not limited. */
export function startSlotsFromEnv(env: NodeJS.ProcessEnv = process.env): { dir: string; count: number } | undefined {
  const dir = env.FLOTILLA_TEST_SLOT_DIR;
  const count = Number(env.FLOTILLA_TEST_START_SLOTS ?? "0");
  if (dir === undefined || dir === "" || !Number.isInteger(count) || count < 1) return undefined;
  return { dir, count };
}

/** Runs fn while holding a start slot (at once when starts are not limited). */
export async function withStartSlot<T>(fn: () => Promise<T>, env: NodeJS.ProcessEnv = process.env): Promise<T> {
  const slots = startSlotsFromEnv(env);
  if (slots === undefined) return fn();
  const holder = await takeSlot(slots.dir, slots.count);
  try {
    return await fn();
  } finally {
    holder.stdin?.end();
  }
}

async function takeSlot(dir: string, count: number): Promise<ChildProcess> {
  const order = Array.from({ length: count }, (_, i) => i).sort(() => Math.random() - 0.5);
  for (const i of order) {
    const held = await lock(join(dir, `slot-${i}`), false);
    if (held !== undefined) return held;
  }
  // All busy: wait for one of them.
  const held = await lock(join(dir, `slot-${order[0]}`), true);
  if (held === undefined) throw new Error(`test/env: could not take a fleet start slot in ${dir}`);
  return held;
}

/** Resolves with the process holding the lock, or undefined when wait is false and it is taken. */
function lock(file: string, wait: boolean): Promise<ChildProcess | undefined> {
  return new Promise((resolve, reject) => {
    const child = spawn("flock", [...(wait ? [] : ["-n"]), file, "sh", "-c", "echo held; exec cat >/dev/null"], { stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("held")) {
        child.stdout.destroy();
        resolve(child);
      }
    });
    child.on("error", reject);
    child.on("exit", () => {
      if (!out.includes("held")) resolve(undefined);
    });
    // The holder must not keep this process alive once the test is done with everything else.
    child.unref();
  });
}
