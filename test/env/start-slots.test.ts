// Fleet start slots on real flock(1) locks: at most N holders at once, and a holder that dies frees its slot.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startSlotsFromEnv, withStartSlot } from "./start-slots.ts";

const dir = mkdtempSync(join(tmpdir(), "flotilla-slots-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `count` holders at once, each holding for holdMs; returns the most that held at the same time. */
async function mostAtOnce(env: NodeJS.ProcessEnv, count: number, holdMs: number): Promise<number> {
  let now = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: count }, () =>
      withStartSlot(async () => {
        now++;
        most = Math.max(most, now);
        await sleep(holdMs);
        now--;
      }, env),
    ),
  );
  return most;
}

describe("start slots", () => {
  it("reads the slots from the environment, and none when unset or bad", () => {
    assert.deepEqual(startSlotsFromEnv({ FLOTILLA_TEST_SLOT_DIR: "/d", FLOTILLA_TEST_START_SLOTS: "2" }), { dir: "/d", count: 2 });
    assert.equal(startSlotsFromEnv({}), undefined);
    assert.equal(startSlotsFromEnv({ FLOTILLA_TEST_SLOT_DIR: "/d" }), undefined);
    assert.equal(startSlotsFromEnv({ FLOTILLA_TEST_SLOT_DIR: "/d", FLOTILLA_TEST_START_SLOTS: "x" }), undefined);
    assert.equal(startSlotsFromEnv({ FLOTILLA_TEST_SLOT_DIR: "", FLOTILLA_TEST_START_SLOTS: "2" }), undefined);
  });

  it("one slot: starts one after another", async () => {
    assert.equal(await mostAtOnce({ FLOTILLA_TEST_SLOT_DIR: dir, FLOTILLA_TEST_START_SLOTS: "1" }, 3, 300), 1);
  });

  it("two slots: two at once, never three", async () => {
    assert.equal(await mostAtOnce({ FLOTILLA_TEST_SLOT_DIR: dir, FLOTILLA_TEST_START_SLOTS: "2" }, 4, 500), 2);
  });

  it("a start inside a start takes no second slot (one slot: no deadlock)", async () => {
    const env = { FLOTILLA_TEST_SLOT_DIR: dir, FLOTILLA_TEST_START_SLOTS: "1" };
    const inner = await withStartSlot(() => Promise.all([withStartSlot(async () => "a", env), withStartSlot(async () => "b", env)]), env);
    assert.deepEqual(inner, ["a", "b"]);
  });

  it("a waiting start takes the first slot that frees", async () => {
    const env = { FLOTILLA_TEST_SLOT_DIR: dir, FLOTILLA_TEST_START_SLOTS: "2" };
    const t0 = Date.now();
    const holds = [withStartSlot(() => sleep(500), env), withStartSlot(() => sleep(4000), env)];
    await sleep(100);
    await withStartSlot(async () => undefined, env);
    const waited = Date.now() - t0;
    assert.ok(waited < 2500, `took a slot after ${waited} ms; the first freed at 500 ms`);
    await Promise.all(holds);
  });

  it("a slot directory that is gone: the start fails at once, naming the slot, instead of waiting", async () => {
    const env = { FLOTILLA_TEST_SLOT_DIR: join(dir, "gone"), FLOTILLA_TEST_START_SLOTS: "1" };
    const t = Date.now();
    await assert.rejects(withStartSlot(async () => "started", env), /cannot take the start slot .*gone\/slot-0: flock exited 6\d/);
    assert.ok(Date.now() - t < 5_000, "it did not wait");
  });

  it("no slots set: all at once", async () => {
    assert.equal(await mostAtOnce({}, 3, 100), 3);
  });

  it("a holder killed with -9 frees its slot", async () => {
    const env = { ...process.env, FLOTILLA_TEST_SLOT_DIR: dir, FLOTILLA_TEST_START_SLOTS: "1" };
    const script = `import { withStartSlot } from ${JSON.stringify(new URL("./start-slots.ts", import.meta.url).pathname)};
      await withStartSlot(async () => { console.log("holding"); await new Promise(() => setInterval(() => {}, 1000)); });`;
    const holder = spawn(process.execPath, ["--input-type=module", "-e", script], { env, stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve) => holder.stdout.on("data", (d: Buffer) => d.toString().includes("holding") && resolve()));
    let took = false;
    const taking = withStartSlot(async () => {
      took = true;
    }, env);
    await sleep(500);
    assert.equal(took, false, "the slot is held");
    holder.kill("SIGKILL");
    await taking;
    assert.equal(took, true);
  });
});
