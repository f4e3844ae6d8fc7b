import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FlagError, type FlagSpec, flagHelp, parseArgs, parseFlags, positiveFlag } from "./flags.ts";

const specs: FlagSpec[] = [
  { name: "name", type: "string", help: "a name", env: "T_NAME", required: true },
  { name: "every", type: "duration", help: "period", default: "10s" },
  { name: "crds", type: "bool", help: "install", default: "true" },
  { name: "workers", type: "int", help: "n", default: "4" },
];

describe("parseFlags", () => {
  const cases: { name: string; argv: string[]; env?: NodeJS.ProcessEnv; want: Record<string, unknown> }[] = [
    { name: "defaults and env", argv: [], env: { T_NAME: "a" }, want: { name: "a", every: 10_000, crds: true, workers: 4 } },
    { name: "flags beat env", argv: ["--name=b", "--every", "1m", "--crds=false", "--workers", "8"], env: { T_NAME: "a" }, want: { name: "b", every: 60_000, crds: false, workers: 8 } },
    { name: "bare bool is true", argv: ["--name", "c", "--crds"], want: { name: "c", every: 10_000, crds: true, workers: 4 } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(parseFlags(specs, c.argv, c.env ?? {}), c.want));

  const bad: { name: string; argv: string[]; env?: NodeJS.ProcessEnv; message: RegExp }[] = [
    { name: "missing required", argv: [], message: /--name is required \(or set \$T_NAME\)/ },
    { name: "unknown flag", argv: ["--nme=a"], message: /unknown flag --nme/ },
    { name: "bad duration", argv: ["--name=a", "--every=10"], message: /--every must be a duration such as 500ms, 30s or 1m, not "10"/ },
    { name: "bad bool", argv: ["--name=a", "--crds=yes"], message: /--crds must be true or false/ },
    { name: "bad int", argv: ["--name=a", "--workers=x"], message: /--workers must be a whole number/ },
    { name: "value missing", argv: ["--name"], message: /--name needs a value/ },
    { name: "stray argument", argv: ["name"], message: /unexpected argument "name"/ },
  ];
  for (const c of bad) it(`refuses ${c.name}`, () => assert.throws(() => parseFlags(specs, c.argv, c.env ?? {}), (e: unknown) => e instanceof FlagError && c.message.test(e.message)));

  it("documents every flag", () => {
    const help = flagHelp(specs);
    for (const s of specs) assert.match(help, new RegExp(`--${s.name}`));
    assert.match(help, /env T_NAME/);
  });
});

describe("parseArgs", () => {
  const specs: FlagSpec[] = [
    { name: "namespace", type: "string", short: "n", default: "default", help: "namespace" },
    { name: "output", type: "string", short: "o", default: "table", help: "format" },
    { name: "all", type: "bool", short: "A", help: "all" },
  ];
  const cases: { argv: string[]; flags: Record<string, unknown>; positionals: string[] }[] = [
    { argv: ["render", "deploy/web", "-n", "prod", "-o=yaml"], flags: { namespace: "prod", output: "yaml", all: undefined }, positionals: ["render", "deploy/web"] },
    { argv: ["get", "--namespace=x", "clusters", "-A"], flags: { namespace: "x", output: "table", all: true }, positionals: ["get", "clusters"] },
    { argv: ["get", "--", "-n"], flags: { namespace: "default", output: "table", all: undefined }, positionals: ["get", "-n"] },
  ];
  for (const c of cases) {
    it(c.argv.join(" "), () => assert.deepEqual(parseArgs(specs, c.argv, {}), { flags: c.flags, positionals: c.positionals }));
  }
  it("refuses an unknown short flag and a missing value", () => {
    assert.throws(() => parseArgs(specs, ["-x"], {}), /unknown flag -x/);
    assert.throws(() => parseArgs(specs, ["-n"], {}), /--namespace needs a value/);
  });
  it("shows short aliases in the help", () => assert.match(flagHelp(specs), /-n, --namespace/));
});

describe("positiveFlag", () => {
  const cases: { name: string; value: number; ok: boolean }[] = [
    { name: "a positive duration", value: 2_000, ok: true },
    { name: "a millisecond", value: 1, ok: true },
    { name: "zero (an interval that would spin)", value: 0, ok: false },
    { name: "a negative number", value: -1, ok: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      if (c.ok) assert.equal(positiveFlag({ every: c.value }, "every"), c.value);
      else assert.throws(() => positiveFlag({ every: c.value }, "every"), (e: unknown) => e instanceof FlagError && /--every must be above 0/.test(e.message));
    });
  }
});
