import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { autogroupNice, autogroupsUsable, parentPid, parseAutogroupNice, processTree, setTreeAutogroupNice } from "./autogroup.ts";

describe("parseAutogroupNice", () => {
  const cases: [string, number | undefined][] = [
    ["/autogroup-9658 nice 0\n", 0],
    ["/autogroup-1 nice 19", 19],
    ["/autogroup-1 nice -5", -5],
    ["", undefined],
  ];
  for (const [text, want] of cases) it(JSON.stringify(text), () => assert.equal(parseAutogroupNice(text), want));
});

describe("parentPid", () => {
  it("reads the parent after a command name with spaces and parentheses", () => {
    assert.equal(parentPid("4242 (node (x) y) S 17 4242 4242 0 -1"), 17);
  });
});

// The runner uses them only where this holds (run.ts): a Linux kernel with autogroups.
const usable = autogroupsUsable();

describe("autogroup priorities of processes", { skip: usable ? false : "no autogroups in this kernel" }, () => {
  it("writes land one after another under the kernel's rate limit without CAP_SYS_ADMIN (one in 100 ms, EAGAIN for the rest)", async () => {
    // A process without CAP_SYS_ADMIN (dropped with setpriv where this one has it, as on CI where it has not).
    const script = `
      import { setAutogroupNice, autogroupNice } from ${JSON.stringify(new URL("./autogroup.ts", import.meta.url).pathname)};
      import { readFileSync } from "node:fs";
      const admin = (BigInt("0x" + /CapEff:\\s*(\\w+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]) >> 21n) & 1n;
      const t = Date.now();
      const results = [3, 5, 8, 11, 0].map((n) => setAutogroupNice(process.pid, n) && autogroupNice("self") === n);
      console.log(JSON.stringify({ admin: Number(admin), results, ms: Date.now() - t }));
    `;
    const admin = (BigInt(`0x${/CapEff:\s*(\w+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "0"}`) >> 21n) & 1n;
    const [cmd, ...args] = admin === 1n ? ["setpriv", "--bounding-set=-sys_admin", "--inh-caps=-sys_admin", process.execPath] : [process.execPath];
    const child = spawn(cmd as string, [...args, "--input-type=module", "-e", script], { detached: true, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    assert.equal(code, 0, out);
    const got = JSON.parse(out) as { admin: number; results: boolean[]; ms: number };
    assert.equal(got.admin, 0, "the writer ran without CAP_SYS_ADMIN");
    assert.deepEqual(got.results, [true, true, true, true, true], "every write landed");
    assert.ok(got.ms >= 300, `five writes took ${got.ms} ms: the kernel's limit was in force`);
  });

  it("a process test/env starts in its own session takes its parent's autogroup priority; setTreeAutogroupNice sets a whole tree's", async () => {
    // A parent in a session of its own at nice 7 starts a child the way ManagedProcess does.
    const script = `
      import { spawn } from "node:child_process";
      import { inheritAutogroupNice, setAutogroupNice, autogroupNice } from ${JSON.stringify(new URL("./autogroup.ts", import.meta.url).pathname)};
      setAutogroupNice(process.pid, 7);
      const child = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
      inheritAutogroupNice(child.pid);
      console.log(JSON.stringify({ child: child.pid, nice: autogroupNice(child.pid) }));
      setTimeout(() => { child.kill(); }, 20_000).unref();
      process.stdin.on("data", () => { child.kill(); process.exit(0); });
    `;
    const parent = spawn(process.execPath, ["--input-type=module", "-e", script], { detached: true, stdio: ["pipe", "pipe", "inherit"] });
    try {
      const line = await new Promise<string>((resolve) => parent.stdout.setEncoding("utf8").once("data", (d: string) => resolve(d)));
      const { child, nice } = JSON.parse(line) as { child: number; nice: number };
      assert.equal(nice, 7, "the child's own session took its parent's priority");
      assert.ok(processTree(parent.pid as number).includes(child), "the child is in its parent's tree");
      setTreeAutogroupNice(parent.pid as number, 0);
      assert.equal(autogroupNice(parent.pid as number), 0);
      assert.equal(autogroupNice(child), 0);
    } finally {
      parent.stdin.write("x");
      parent.kill();
    }
  });
});
