// Fleet starts across parallel test files take a slot: starting etcd, kube-apiservers and
// controllers is the most CPU-hungry thing a test does, and on a small machine too many at once
// time out. The suite runner (test/runner/run.ts) sets FLOTILLA_TEST_SLOT_DIR and
// FLOTILLA_TEST_START_SLOTS; a file run on its own has no slots and starts at once.
//
// A slot is an flock(1) on <dir>/slot-<i>, held by a small child process (`flock FILE cat`) for as
// long as its stdin is open: closing it, or this process dying, frees the slot. A start inside
// another's slot (startFleet's clusters) takes none, so nested starts never wait on themselves.
import { AsyncLocalStorage } from "node:async_hooks";
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

/** How often a start that found every slot taken tries them all again. */
const RETRY_MS = 250;

const holding = new AsyncLocalStorage<true>();

/** Where the slots are and how many, from the environment; undefined when starts are not limited. */
export function startSlotsFromEnv(env: NodeJS.ProcessEnv = process.env): { dir: string; count: number } | undefined {
  const dir = env.FLOTILLA_TEST_SLOT_DIR;
  const count = Number(env.FLOTILLA_TEST_START_SLOTS ?? "0");
  if (dir === undefined || dir === "" || !Number.isInteger(count) || count < 1) return undefined;
  return { dir, count };
}

/**
 * Runs fn while holding a start slot: at once when starts are not limited or this start is inside
 * one that holds a slot already.
 */
export async function withStartSlot<T>(fn: () => Promise<T>, env: NodeJS.ProcessEnv = process.env): Promise<T> {
  const slots = startSlotsFromEnv(env);
  if (slots === undefined || holding.getStore() === true) return fn();
  const holder = await takeSlot(slots.dir, slots.count);
  try {
    return await holding.run(true, fn);
  } finally {
    holder.stdin?.end();
  }
}

/** The first slot that is free, trying them all every RETRY_MS until one is. */
async function takeSlot(dir: string, count: number): Promise<ChildProcess> {
  for (;;) {
    const order = Array.from({ length: count }, (_, i) => i).sort(() => Math.random() - 0.5);
    for (const i of order) {
      const held = await tryLock(join(dir, `slot-${i}`));
      if (held !== undefined) return held;
    }
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}

/** flock's exit code for a lock another process holds (its -E). */
const FLOCK_TAKEN = 75;

/** Resolves with the process holding the lock, or undefined when it is taken; rejects when flock cannot lock the file at all. */
function tryLock(file: string): Promise<ChildProcess | undefined> {
  return new Promise((resolve, reject) => {
    // -E: a taken lock exits FLOCK_TAKEN, so that any other exit (the file cannot be opened) is an error, not a wait.
    const child = spawn("flock", ["-n", "-E", String(FLOCK_TAKEN), file, "sh", "-c", "echo held; exec cat >/dev/null"], { stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("held")) {
        child.stdout.destroy();
        // Held: the holder must not keep this process alive once the test is done with all else.
        child.unref();
        resolve(child);
      }
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (out.includes("held")) return;
      if (code === FLOCK_TAKEN) resolve(undefined);
      else reject(new Error(`test/env: cannot take the start slot ${file}: flock exited ${code}`));
    });
  });
}
