// The documentation stays true: the generated references match the code, every relative link
// and anchor resolves, and every Flotilla command a shell block shows exists.
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { commands as flotillaCommands } from "../bin/flotilla-commands.ts";
import { commands as flotillactlCommands } from "../bin/flotillactl.ts";
import { GENERATED, generatedDocs, metricsIn } from "../scripts/gen-docs.ts";
import { anchors, flagsShown, namesCommand, relativeLinks, shownCommands, simpleCommands, slug, splitFences, unknownFlags } from "./docs-check.ts";
import { lookupCommand } from "../bin/command-line.ts";
import { connectionFlags } from "../bin/ctl/connection.ts";

const root = fileURLToPath(new URL("../", import.meta.url));

async function markdownFiles(): Promise<string[]> {
  const docs = (await readdir(join(root, "docs"), { recursive: true })).filter((f) => f.endsWith(".md")).map((f) => join("docs", f));
  return ["README.md", ...docs.sort()];
}

describe("the docs checker", () => {
  it("gives GitHub's anchors", () => {
    const cases: [string, string][] = [
      ["Quick start", "quick-start"],
      ["What `up` writes", "what-up-writes"],
      ["Running Flotilla: `flotilla control-plane`, `flotilla agent`, `flotilla certs`", "running-flotilla-flotilla-control-plane-flotilla-agent-flotilla-certs"],
      ["Benchmark: `npm run bench:autoscale`", "benchmark-npm-run-benchautoscale"],
      ["Test clusters (`test/env/`)", "test-clusters-testenv"],
      ["Fleet scale (issue 12): figures against the goals", "fleet-scale-issue-12-figures-against-the-goals"],
      ["snake_case and [a link](x.md)", "snake_case-and-a-link"],
    ];
    for (const [heading, want] of cases) assert.equal(slug(heading), want, heading);
    const a = anchors("# Title\n## Same\n```sh\n# not a heading\n```\n## Same\n### Same\n");
    assert.deepEqual([...a].sort(), ["same", "same-1", "same-2", "title"]);
  });

  it("finds relative links outside code only", () => {
    const md = [
      "See [quick start](docs/quick-start.md#what-up-writes) and [site](https://example.com/x.md).",
      "`[not a link](nowhere.md)` ![img](img.png) [anchor](#here)",
      "```md",
      "[in a fence](fence.md)",
      "```",
    ].join("\n");
    assert.deepEqual(
      relativeLinks(md).map((l) => `${l.line}:${l.target}`),
      ["1:docs/quick-start.md#what-up-writes", "2:img.png", "2:#here"],
    );
  });

  it("reads fences, with their language and first line", () => {
    const { fences } = splitFences("a\n```sh\nx\n```\n~~~yaml\ny: 1\n~~~\n");
    assert.deepEqual(fences, [{ lang: "sh", lines: ["x"], startLine: 3 }, { lang: "yaml", lines: ["y: 1"], startLine: 6 }]);
  });

  it("splits a shell line into its simple commands", () => {
    assert.deepEqual(simpleCommands("npm ci && npm run up      # the whole fleet"), ["npm ci", "npm run up"]);
    assert.deepEqual(simpleCommands("kubectl get pods | grep web; flotillactl get clusters"), ["kubectl get pods", "grep web", "flotillactl get clusters"]);
    assert.deepEqual(simpleCommands("# only a comment"), []);
  });

  it("finds the commands shown in shell blocks, in every way they are started", () => {
    const md = [
      "Prose: `flotillactl nope` and flotillactl rollout pause|resume are not read.",
      "```sh",
      "npm ci && npm run up   # comment",
      "$ npx flotillactl get clusters -o json",
      "FLOTILLA_SERVER=x:1 flotillactl describe deployment/web -n demo",
      "node bin/flotilla.ts certs init --dir certs \\",
      "  --hub-dns example.com",
      "npm run -s env -- bin-dir",
      "npm run -s flotillactl -- token list",
      "kubectl get deploy | grep flotilla",
      "```",
      "```",
      "flotilla agent --cluster-name member1",
      "```",
      "```yaml",
      "command: flotillactl nope",
      "```",
    ].join("\n");
    assert.deepEqual(
      shownCommands(md).map((c) => `${c.line} ${c.program}: ${c.words.join(" ")}`),
      [
        "3 npm run: up",
        "4 flotillactl: get clusters -o json",
        "5 flotillactl: describe deployment/web -n demo",
        "7 flotilla: certs init --dir certs --hub-dns example.com",
        "8 npm run: env -- bin-dir",
        "9 flotillactl: token list",
        "13 flotilla: agent --cluster-name member1",
      ],
    );
  });

  it("finds the flags a command shows, and those no spec defines", () => {
    assert.deepEqual(flagsShown(["deployment/web", "-n", "demo", "--cluster=member1", "-o", "json", "--", "--not-a-flag"]), ["-n", "--cluster", "-o"]);
    const specs = [{ name: "namespace", short: "n" }, { name: "cluster" }];
    assert.deepEqual(unknownFlags(["-n", "--cluster", "--namespace", "-o", "--nope"], specs), ["-o", "--nope"]);
  });

  it("matches subcommands as the command line picks them", () => {
    const table = { "get clusters": 1, describe: 1, "certs init": 1 };
    assert.ok(namesCommand(["get", "clusters"], table));
    assert.ok(namesCommand(["describe", "deployment/web"], table));
    assert.ok(namesCommand(["certs", "init", "--dir", "x"], table));
    assert.ok(namesCommand(["help"], table));
    assert.ok(!namesCommand(["get", "nodes"], table));
    assert.ok(!namesCommand(["certs"], table));
    assert.ok(!namesCommand([], table));
  });
});

describe("the metrics reference generator", () => {
  it("reads each metric's name, type, help and label names from its definition", () => {
    const source = [
      'const a = counter("flotilla_a_total", "Things done.", ["cluster"]);',
      'gaugeOf("flotilla_b", "Held \\"now\\".", () => [...m].map(([k, v]) => [{ name: k }, v] as const), ["name"]);',
      "const c = histogram(",
      '  "flotilla_c_seconds",',
      '  "Time taken.",',
      ");",
      'const notOurs = counter("other_total", "x");',
    ].join("\n");
    assert.deepEqual(metricsIn(source, "agent/x.ts"), [
      { name: "flotilla_a_total", type: "counter", help: "Things done.", labels: ["cluster"], file: "agent/x.ts" },
      { name: "flotilla_b", type: "gauge", help: 'Held "now".', labels: ["name"], file: "agent/x.ts" },
      { name: "flotilla_c_seconds", type: "histogram", help: "Time taken.", labels: [], file: "agent/x.ts" },
    ]);
  });
});

describe("the documentation", () => {
  it("has generated references that match the code (run `npm run docs:gen` when this fails)", async () => {
    const want = await generatedDocs();
    for (const path of GENERATED) {
      const have = existsSync(join(root, path)) ? await readFile(join(root, path), "utf8") : "";
      assert.ok(have === want[path], `${path} is stale: run \`npm run docs:gen\` and commit the result`);
    }
  });

  it("has only relative links that resolve, anchors included", async () => {
    const problems: string[] = [];
    for (const file of await markdownFiles()) {
      const text = await readFile(join(root, file), "utf8");
      for (const link of relativeLinks(text)) {
        const [path = "", anchor] = link.target.split("#", 2);
        const target = path === "" ? join(root, file) : join(root, dirname(file), decodeURIComponent(path));
        const where = `${file}:${link.line} ${link.target}`;
        if (!existsSync(target)) {
          problems.push(`${where}: no such file ${relative(root, target)}`);
          continue;
        }
        if (anchor !== undefined && statSync(target).isFile() && target.endsWith(".md")) {
          if (!anchors(await readFile(target, "utf8")).has(anchor)) problems.push(`${where}: no heading gives #${anchor}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it("shows only commands that exist: flotilla and flotillactl subcommands, npm scripts", async () => {
    const scripts = (JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    const problems: string[] = [];
    let checked = 0;
    for (const file of await markdownFiles()) {
      for (const c of shownCommands(await readFile(join(root, file), "utf8"))) {
        checked++;
        const ok =
          c.program === "npm run" ? c.words[0] !== undefined && Object.hasOwn(scripts, c.words[0]) : namesCommand(c.words, c.program === "flotilla" ? flotillaCommands : flotillactlCommands);
        if (!ok) problems.push(`${file}:${c.line}: ${c.text}`);
        else if (c.program !== "npm run" && !["help", "--help", "-h"].includes(c.words[0] as string)) {
          // The flags it shows must be the subcommand's (flotillactl's connection flags count for every one).
          const found = lookupCommand<{ flags: { name: string; short?: string }[] }>(c.program === "flotilla" ? flotillaCommands : flotillactlCommands, c.words);
          const specs = [...(found?.command.flags ?? []), ...(c.program === "flotillactl" ? connectionFlags : [])];
          const unknown = unknownFlags(flagsShown(found?.rest ?? []), specs);
          if (unknown.length > 0) problems.push(`${file}:${c.line}: ${c.text}: no such flag ${unknown.join(", ")}`);
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(checked > 20, `only ${checked} commands found in shell blocks: is the parser reading them?`);
  });

});
