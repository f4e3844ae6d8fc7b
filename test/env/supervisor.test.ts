// The supervisor on real (tiny) processes: restarts with a doubling back-off, leaves what a person
// stopped, keeps its hands off a held process. No clusters needed.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ManagedProcess } from "./managed-process.ts";
import { type Supervisor, type SupervisorEvent, supervise } from "./supervisor.ts";
import { waitFor } from "./wait.ts";

const started: ManagedProcess[] = [];
const supervisors: Supervisor[] = [];
let dir = "";
after(async () => {
  for (const s of supervisors) s.stop();
  await Promise.all(started.map((p) => p.kill()));
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

async function sh(name: string, script: string): Promise<ManagedProcess> {
  dir ||= await mkdtemp(join(tmpdir(), "flotilla-supervisor-"));
  const p = ManagedProcess.start({ name, command: "sh", args: ["-c", script], logFile: join(dir, `${name}.log`) });
  started.push(p);
  return p;
}

function watched(processes: ManagedProcess[], when: "always" | "own-exit"): { events: SupervisorEvent[]; supervisor: Supervisor } {
  const events: SupervisorEvent[] = [];
  const supervisor = supervise(processes, { policy: { when, initialMs: 50, maxMs: 200, resetAfterMs: 10_000 }, onEvent: (e) => events.push(e), readyTimeoutMs: 5_000 });
  supervisors.push(supervisor);
  return { events, supervisor };
}

describe("supervise", () => {
  it("restarts a process that keeps exiting by itself, the delay doubling up to the maximum", async () => {
    const p = await sh("crashy", "sleep 0.05; exit 3");
    const { events, supervisor } = watched([p], "own-exit");
    await waitFor(async () => events.filter((e) => e.type === "restarting").length >= 5, { what: "5 restarts", timeoutMs: 10_000, intervalMs: 20 });
    supervisor.stop();
    const restarting = events.flatMap((e) => (e.type === "restarting" ? [e] : []));
    assert.deepEqual(restarting.slice(0, 5).map((e) => e.delayMs), [50, 100, 200, 200, 200]);
    assert.ok(restarting.every((e) => e.exit.code === 3 && e.label === "crashy"));
    assert.ok(p.runs >= 5, `started ${p.runs} times`);
    assert.ok(supervisor.restarts().every((r) => r.name === "crashy" && r.exit === "code 3"));
  });

  it("under own-exit, leaves a process killed from outside down until someone restarts it, then watches the new run", async () => {
    const p = await sh("killed", "sleep 60");
    const { events } = watched([p], "own-exit");
    await p.kill();
    await waitFor(async () => events.some((e) => e.type === "left-down"), { what: "left-down", timeoutMs: 5_000, intervalMs: 20 });
    assert.deepEqual(events.map((e) => e.type === "left-down" && e.why), ["stopped by SIGKILL from outside"]);
    assert.equal(p.running, false, "not restarted");
    await p.restart();
    process.kill(p.pid, "SIGABRT");
    await waitFor(async () => events.some((e) => e.type === "restarted"), { what: "a restart after the crash of the new run", timeoutMs: 5_000, intervalMs: 20 });
    assert.ok(p.running);
  });

  it("keeps its hands off a held process; a released one that is down is restarted", async () => {
    const p = await sh("held", "sleep 60");
    const { events, supervisor } = watched([p], "always");
    supervisor.hold(p);
    await p.kill();
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(events.length, 0, "nothing done while held");
    assert.equal(p.running, false);
    supervisor.release(p);
    await waitFor(async () => p.running && events.some((e) => e.type === "restarted"), { what: "restart after release", timeoutMs: 5_000, intervalMs: 20 });
  });
});
