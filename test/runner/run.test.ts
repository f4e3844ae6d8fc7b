// The suite runner as a process, on small test files made for it: the per-file budget bites on a
// file made slow on purpose, a failing test fails the run, and the closing line counts every file.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { autogroupNice } from "../env/autogroup.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
// The runner runs in this directory, so files under its test/ are jobs of their own, as in the repository.
const dir = mkdtempSync(join(tmpdir(), "flotilla-runner-test-"));
mkdirSync(join(dir, "test"));
after(() => rmSync(dir, { recursive: true, force: true }));

function fixture(name: string, body: string): string {
  writeFileSync(join(dir, "test", name), `import { it } from "node:test";\n${body}\n`);
  return `test/${name}`;
}
const slow = fixture("slow.test.mjs", `console.log("SLOW-OUTPUT");\nit("sleeps", () => new Promise((r) => setTimeout(r, 2500)));\nit("and another", () => {});`);
const fast = fixture("fast.test.mjs", `console.log("FAST-OUTPUT");\nit("is quick", () => {});\nit.skip("is skipped", () => {});`);
const failing = fixture("failing.test.mjs", `it("fails", () => { throw new Error("on purpose"); });`);

function runSuite(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(root, "test/runner/run.ts"), "--global-setup", "", "--times", join(dir, "times.json"), ...args], { cwd: dir, encoding: "utf8", timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

const lastLine = (out: string) => out.trimEnd().split("\n").pop();

describe("test/runner/run.ts", () => {
  it("fails the run when a file takes longer than its budget, naming it", async () => {
    const r = await runSuite(["--file-budget-s", "2", slow, fast]);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, new RegExp(`OVER BUDGET: ${slow.replaceAll(".", "\\.")} took \\d+\\.\\d s, more than 2\\.0 s`));
    assert.doesNotMatch(r.out, /OVER BUDGET: .*fast/);
    assert.equal(lastLine(r.out), "tests: 3 passed, 0 failed, 1 skipped");
    const times = JSON.parse(readFileSync(join(dir, "times.json"), "utf8")) as { files: Record<string, number> };
    assert.ok(times.files[slow]! >= 2500, `the slow file's time is kept: ${JSON.stringify(times.files)}`);
    assert.ok(times.files[fast]! < times.files[slow]!);
  });

  it("passes when every file is within its budget, and lists the slowest", async () => {
    const r = await runSuite(["--file-budget-s", "60", "--slowest", "1", slow, fast]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, new RegExp(`slowest test files \\(budget 60\\.0 s each\\):\\n  ${slow.replaceAll(".", "\\.")} +\\d+\\.\\d s\\n`));
    assert.equal(lastLine(r.out), "tests: 3 passed, 0 failed, 1 skipped");
  });

  it("prints each job's own output under its name, whichever ends first", async () => {
    const r = await runSuite(["--concurrency", "2", slow, fast]);
    assert.equal(r.code, 0, r.out);
    const part = (name: string) => r.out.slice(r.out.indexOf(`▶ ${name} (`)).split(/\n(?=▶ |slowest )/)[0]!;
    assert.match(part(fast), /FAST-OUTPUT/);
    assert.doesNotMatch(part(fast), /SLOW-OUTPUT/);
    assert.match(part(slow), /SLOW-OUTPUT/);
    assert.ok(r.out.indexOf(`▶ ${fast}`) < r.out.indexOf(`▶ ${slow}`), "the fast file ended first");
  });

  it("fails the run when a test fails, and prints that file's output", async () => {
    const r = await runSuite([failing, fast]);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /on purpose/);
    // The closing lines name the failed test and its message, so a run's tail says what broke.
    assert.match(r.out, /\nfailed test: test\/failing\.test\.mjs › fails: on purpose\n/);
    assert.equal(lastLine(r.out), "tests: 1 passed, 1 failed, 1 skipped");
  });

  it("fails the run when a file exits 0 in the middle of its tests", async () => {
    const exits = fixture("exits.test.mjs", `it("passes", () => {});\nit("exits", () => process.exit(0));\nit("would fail", () => { throw new Error("never run"); });`);
    const r = await runSuite([exits, fast]);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /failed: test\/exits\.test\.mjs: it ended before node's summary/);
    // The test that passed before the exit counts when its report got out before the exit.
    assert.match(lastLine(r.out) ?? "", /^tests: [12] passed, 1 failed, 1 skipped$/);
  });

  it("ends a job past --job-timeout-s, and fails the run", async () => {
    const hangs = fixture("hangs.test.mjs", `it("never ends", () => new Promise(() => setInterval(() => {}, 1000)));`);
    const r = await runSuite(["--job-timeout-s", "2", hangs]);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /✖ test\/hangs\.test\.mjs \(\d+\.\d s, still running after --job-timeout-s: ended/);
    assert.match(lastLine(r.out) ?? "", /^tests: 0 passed, [1-9]\d* failed, 0 skipped$/);
  });

  it("on SIGINT ends the running job, giving its cleanup time, starts no other, and exits 130", async () => {
    const mark = (name: string) => JSON.stringify(join(dir, name));
    // Its SIGTERM handler cleans up for half a second, as test/env's does when it stops clusters.
    const holds = fixture(
      "holds.test.mjs",
      `import { writeFileSync } from "node:fs";\nprocess.on("SIGTERM", () => setTimeout(() => { writeFileSync(${mark("cleaned")}, "yes"); process.exit(1); }, 500));\nit("holds", () => { writeFileSync(${mark("started")}, "yes"); return new Promise(() => setInterval(() => {}, 1000)); });`,
    );
    const later = fixture("later.test.mjs", `import { writeFileSync } from "node:fs";\nwriteFileSync(${mark("later")}, "yes");\nit("runs", () => {});`);
    const tmp = join(dir, "tmp");
    mkdirSync(tmp);
    const runner = spawn(process.execPath, [join(root, "test/runner/run.ts"), "--global-setup", "", "--times", join(dir, "signal-times.json"), "--concurrency", "1", holds, later], { cwd: dir, env: { ...process.env, TMPDIR: tmp }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    runner.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    runner.stderr.setEncoding("utf8").on("data", (c: string) => (out += c));
    const exited = new Promise<number | null>((r) => runner.on("exit", (code) => r(code)));
    for (let i = 0; i < 200 && !existsSync(join(dir, "started")); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(join(dir, "started")), `the first job started: ${out}`);
    runner.kill("SIGINT");
    assert.equal(await exited, 130, out);
    assert.match(out, /suite: stopped by SIGINT: 1 jobs ended, 1 never started; no times kept/);
    assert.ok(existsSync(join(dir, "cleaned")), "the job's cleanup ran to its end before its group was killed");
    assert.ok(!existsSync(join(dir, "later")), "no job started after the signal");
    assert.ok(!existsSync(join(dir, "signal-times.json")), "no times kept");
    assert.deepEqual(readdirSync(tmp), [], "the runner's work directory is gone");
  });

  it("runs a companion at the lowest priority beside a file that runs alone, and raises it once the alone file is done", async () => {
    // test/leader-thread.test.ts is in RUN_ALONE (it allows a companion); the other prints its
    // autogroup's priority (test/env/autogroup.ts) beside it, and again after it ended.
    // Without CAP_SYS_ADMIN the kernel takes one autogroup write per 100 ms machine-wide, and the
    // runner retries a refused one (AUTOGROUP_WRITE_PATIENCE_MS): the companion looks for up to 3 s,
    // beside an alone file that runs 4 s (a full suite's writes around it delayed it past the first look).
    const aloneFile = fixture("leader-thread.test.ts", `it("runs alone a while", () => new Promise((r) => setTimeout(r, 4000)));`);
    const companion = fixture(
      "companion.test.mjs",
      `import { readFileSync } from "node:fs";\nconst nice = () => readFileSync("/proc/self/autogroup", "utf8").trim();\nit("reports its priority", async () => { for (let i = 0; i < 30 && !nice().endsWith(" 19"); i++) await new Promise((r) => setTimeout(r, 100)); console.log("BESIDE:", nice()); await new Promise((r) => setTimeout(r, 6000)); console.log("AFTER:", nice()); });`,
    );
    const r = await new Promise<{ code: number; out: string }>((resolve) => {
      execFile(process.execPath, [join(root, "test/runner/run.ts"), "--global-setup", "", "--times", join(dir, "companion-times.json"), "--concurrency", "2", aloneFile, companion], { cwd: dir, encoding: "utf8", timeout: 60_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? 1 : 0, out: stdout + stderr });
      });
    });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, new RegExp(`▶ ${companion.replaceAll(".", "\\.")} \\(\\d+\\.\\d s, started at low priority beside an alone file\\)`));
    assert.match(r.out, /BESIDE: \/autogroup-\d+ nice 19/);
    // Back to the runner's own priority: this file's, which is 19 when it runs as a companion itself.
    assert.match(r.out, new RegExp(`AFTER: /autogroup-\\d+ nice ${autogroupNice("self")}\n`));
    assert.match(r.out, /suite: 2 jobs \(1 started as companions of alone files\)/);
  });

  it("runs --beside at the lowest priority, prints its output, and fails the run when it fails", async () => {
    // The runner sets the priority right after the spawn; without CAP_SYS_ADMIN the kernel may make
    // that write wait its turn (test/env/autogroup.ts), so the command looks for up to 5 s.
    const look = "for i in $(seq 50); do grep -q 'nice 19' /proc/self/autogroup && break; sleep 0.1; done; cat /proc/self/autogroup";
    const ok = await runSuite(["--beside", `echo BESIDE-OUT; ${look}`, fast]);
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, /\nBESIDE-OUT\n\/autogroup-\d+ nice 19\n/);
    assert.ok(ok.out.includes(`▶ beside: echo BESIDE-OUT; ${look} (`), ok.out);
    assert.equal(lastLine(ok.out), "tests: 1 passed, 0 failed, 1 skipped");
    const bad = await runSuite(["--beside", "echo broken >&2; exit 3", fast]);
    assert.equal(bad.code, 1, bad.out);
    assert.match(bad.out, /✖ beside: echo broken >&2; exit 3 \(\d+\.\d s, exit 3\)\nbroken\n/);
    assert.match(bad.out, /failed: echo broken >&2; exit 3: exit 3/);
    assert.equal(lastLine(bad.out), "tests: 1 passed, 0 failed, 1 skipped");
  });

  it("refuses a bad option with exit 2", async () => {
    const r = await runSuite(["--concurrency", "zero", fast]);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /--concurrency must be a positive number/);
    const half = await runSuite(["--concurrency", "0.5", fast]);
    assert.equal(half.code, 2, half.out);
    assert.match(half.out, /--concurrency must be a whole number/);
  });
});
