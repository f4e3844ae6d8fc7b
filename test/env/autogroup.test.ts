import assert from "node:assert/strict";
import { spawn } from "node:child_process";
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

// The runner uses them only where this holds (run.ts), as on CI's machine (root).
const usable = autogroupsUsable();

describe("autogroup priorities of processes", { skip: usable ? false : "no autogroups here, or no CAP_SYS_ADMIN to set them as often as the runner does" }, () => {
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
