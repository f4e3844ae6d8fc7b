import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRestartOptions, parseUpOptions, UsageError } from "./cli-options.ts";

describe("parseUpOptions", () => {
  const cwd = "/work";
  const cases: { name: string; args: string[]; env: NodeJS.ProcessEnv; want: { members: number; stateDir: string } }[] = [
    { name: "defaults", args: [], env: {}, want: { members: 2, stateDir: "/work/.flotilla" } },
    { name: "environment", args: [], env: { FLOTILLA_MEMBERS: "3", FLOTILLA_STATE_DIR: "/s" }, want: { members: 3, stateDir: "/s" } },
    { name: "flags beat environment", args: ["--members", "1", "--state-dir=/f"], env: { FLOTILLA_MEMBERS: "3", FLOTILLA_STATE_DIR: "/s" }, want: { members: 1, stateDir: "/f" } },
    { name: "empty variables mean unset", args: [], env: { FLOTILLA_MEMBERS: "", FLOTILLA_STATE_DIR: "" }, want: { members: 2, stateDir: "/work/.flotilla" } },
    { name: "inline members", args: ["--members=20"], env: {}, want: { members: 20, stateDir: "/work/.flotilla" } },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(parseUpOptions(c.args, c.env, cwd), c.want));
  }

  const bad: { name: string; args: string[]; env: NodeJS.ProcessEnv; message: RegExp }[] = [
    { name: "zero members", args: ["--members", "0"], env: {}, message: /--members must be a whole number from 1 to 20, not "0"/ },
    { name: "too many members", args: ["--members", "21"], env: {}, message: /from 1 to 20/ },
    { name: "fractional members", args: ["--members", "1.5"], env: {}, message: /whole number/ },
    { name: "bad environment", args: [], env: { FLOTILLA_MEMBERS: "two" }, message: /FLOTILLA_MEMBERS must be a whole number.*"two"/ },
    { name: "missing value", args: ["--members"], env: {}, message: /--members needs a value/ },
    { name: "unknown flag", args: ["--member", "2"], env: {}, message: /unknown flag "--member"/ },
  ];
  for (const c of bad) {
    it(`refuses ${c.name}`, () => {
      assert.throws(() => parseUpOptions(c.args, c.env, cwd), (err: unknown) => {
        assert.ok(err instanceof UsageError);
        assert.match(err.message, c.message);
        return true;
      });
    });
  }
});

describe("parseRestartOptions", () => {
  const cwd = "/work";
  const cases: { name: string; args: string[]; env: NodeJS.ProcessEnv; want: { process: string; stateDir: string } }[] = [
    { name: "a name", args: ["agent-member1"], env: {}, want: { process: "agent-member1", stateDir: "/work/.flotilla" } },
    { name: "state dir from the environment", args: ["control-plane"], env: { FLOTILLA_STATE_DIR: "/s" }, want: { process: "control-plane", stateDir: "/s" } },
    { name: "state dir flag first", args: ["--state-dir", "/f", "member1-etcd"], env: { FLOTILLA_STATE_DIR: "/s" }, want: { process: "member1-etcd", stateDir: "/f" } },
    { name: "inline state dir", args: ["member1-etcd", "--state-dir=/f"], env: {}, want: { process: "member1-etcd", stateDir: "/f" } },
    { name: "a bad member count in the environment is not restart's business", args: ["x"], env: { FLOTILLA_MEMBERS: "two" }, want: { process: "x", stateDir: "/work/.flotilla" } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(parseRestartOptions(c.args, c.env, cwd), c.want));

  const bad: { name: string; args: string[]; message: RegExp }[] = [
    { name: "no name", args: [], message: /restart takes one process name .* got 0/ },
    { name: "two names", args: ["a", "b"], message: /got 2/ },
    { name: "an unknown flag", args: ["a", "--members", "2"], message: /unknown flag "--members"/ },
    { name: "a state dir without a value", args: ["a", "--state-dir"], message: /--state-dir needs a value/ },
  ];
  for (const c of bad) {
    it(`refuses ${c.name}`, () => assert.throws(() => parseRestartOptions(c.args, {}, cwd), (err: unknown) => err instanceof UsageError && c.message.test(err.message)));
  }
  it("stop takes the same arguments and names itself when refusing", () => {
    assert.deepEqual(parseRestartOptions(["agent-member1"], {}, cwd, "stop"), { process: "agent-member1", stateDir: "/work/.flotilla" });
    assert.throws(() => parseRestartOptions([], {}, cwd, "stop"), /stop takes one process name/);
  });
});
