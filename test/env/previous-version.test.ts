import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { argsKnownBy, argsOnVersion, parseUsageFlags } from "./previous-version.ts";

const USAGE = `flotilla: unknown flag --help

usage: flotilla <command> [flags]

flotilla control-plane: run the control plane (controllers + agent hub)
  --kubeconfig <string>
      kubeconfig of the control cluster (env KUBECONFIG)
  --install-crds 
      install or update the CRDs at start
  --deletion-budget-min <int>
      the least deletions … --not-a-flag here

flotilla agent: run the agent of one member cluster
  --cluster-name <string>
      this member's Cluster name
  --kubeconfig <string>

flotilla certs init: create the CA
  --dir <string>
`;

describe("parseUsageFlags", () => {
  it("reads each command's flags from the usage text, ignoring flags named in help lines", () => {
    const flags = parseUsageFlags(USAGE);
    assert.deepEqual([...flags.keys()], ["control-plane", "agent", "certs init"]);
    assert.deepEqual([...(flags.get("control-plane") ?? [])], ["kubeconfig", "install-crds", "deletion-budget-min"]);
    assert.deepEqual([...(flags.get("agent") ?? [])], ["cluster-name", "kubeconfig"]);
    assert.deepEqual([...(flags.get("certs init") ?? [])], ["dir"]);
  });

  it("is empty for a text with no commands", () => {
    assert.equal(parseUsageFlags("nothing here\n  --orphan <string>\n").size, 0);
  });
});

describe("argsKnownBy", () => {
  const cases: { name: string; known: Set<string> | undefined; args: string[]; want: string[] }[] = [
    { name: "unknown flags are dropped, with or without a value", known: new Set(["a", "b"]), args: ["bin.ts", "agent", "--a=1", "--c=2", "--b", "--d"], want: ["bin.ts", "agent", "--a=1", "--b"] },
    { name: "the binary and the command are kept even when they look like flags", known: new Set(), args: ["--bin", "--cmd", "--x=1"], want: ["--bin", "--cmd"] },
    { name: "no flag list keeps every argument", known: undefined, args: ["bin.ts", "agent", "--c=2"], want: ["bin.ts", "agent", "--c=2"] },
    { name: "positional arguments are kept", known: new Set(["a"]), args: ["bin.ts", "agent", "value", "--a=x=y"], want: ["bin.ts", "agent", "value", "--a=x=y"] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(argsKnownBy(c.known, c.args), c.want));
});

describe("argsOnVersion", () => {
  it("swaps the binary and drops the flags that version's command does not know", () => {
    const version = { flotillaBin: "/old/bin/flotilla.ts", flags: new Map([["control-plane", new Set(["kubeconfig"])]]) };
    assert.deepEqual(argsOnVersion(version, ["/new/bin/flotilla.ts", "control-plane", "--kubeconfig=k", "--deletion-budget-min=3"]), ["/old/bin/flotilla.ts", "control-plane", "--kubeconfig=k"]);
  });

  it("keeps every flag of a command whose flags it does not know", () => {
    assert.deepEqual(argsOnVersion({ flotillaBin: "/old.ts" }, ["/new.ts", "agent", "--x=1"]), ["/old.ts", "agent", "--x=1"]);
  });
});
