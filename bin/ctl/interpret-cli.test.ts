// `flotillactl interpret` as a user runs it: the real process, on files, with no control plane.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../flotillactl.ts", import.meta.url));

/** A customization of our own for a made-up CRD: replicas at spec.fleet.count, health from status.phase. */
const WIDGET_CUSTOMIZATION = `apiVersion: flotilla.dev/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: widget
spec:
  target:
    apiVersion: example.com/v1
    kind: Widget
  customizations:
    retention:
      luaScript: |
        function Retain(desiredObj, observedObj)
          desiredObj.spec.paused = observedObj.spec.paused
          return desiredObj
        end
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          return obj.spec.fleet.count, { resourceRequest = { cpu = obj.spec.cpu } }
        end
    componentResource:
      luaScript: |
        function GetComponents(obj)
          return { { name = "leader", replicas = 1 }, { name = "worker", replicas = obj.spec.fleet.count } }
        end
    replicaRevision:
      luaScript: |
        function ReviseReplica(obj, desiredReplica)
          obj.spec.fleet.count = desiredReplica
          return obj
        end
    statusReflection:
      luaScript: |
        function ReflectStatus(observedObj)
          return { ready = observedObj.status.ready, phase = observedObj.status.phase }
        end
    statusAggregation:
      luaScript: |
        function AggregateStatus(desiredObj, statusItems)
          if statusItems == nil then
            desiredObj.status = { members = "no status items" }
            return desiredObj
          end
          local ready = 0
          for i = 1, #statusItems do
            ready = ready + statusItems[i].status.ready
          end
          desiredObj.status = { ready = ready, members = #statusItems }
          return desiredObj
        end
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          return observedObj.status.phase == "Running"
        end
    dependencyInterpretation:
      luaScript: |
        function GetDependencies(desiredObj)
          return { { apiVersion = "v1", kind = "ConfigMap", namespace = desiredObj.metadata.namespace, name = desiredObj.spec.configName } }
        end
`;

const BAD_CUSTOMIZATION = `apiVersion: flotilla.dev/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: widget-bad
spec:
  target:
    apiVersion: example.com/v1
    kind: Widget
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          local phase = observedObj.status.phase
          return phase ==
        end
`;

const WIDGET = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  namespace: demo
`;

const DESIRED = `${WIDGET}spec:
  fleet:
    count: 3
  cpu: 250m
  configName: widget-config
  paused: false
`;

const OBSERVED = `${WIDGET}spec:
  fleet:
    count: 2
  paused: true
status:
  ready: 2
  phase: Running
`;

const STATUS_ITEMS = `clusterName: member1
status:
  ready: 2
applied: true
---
clusterName: member2
status:
  ready: 3
applied: true
`;

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function flotillactl(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

describe("flotillactl interpret (the process, no control plane)", () => {
  let dir = "";
  const file = (name: string) => join(dir, name);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "flotillactl-interpret-"));
    const files: Record<string, string> = {
      "widget-customization.yaml": WIDGET_CUSTOMIZATION,
      "bad-customization.yaml": BAD_CUSTOMIZATION,
      "desired.yaml": DESIRED,
      "observed.yaml": OBSERVED,
      "status.yaml": STATUS_ITEMS,
      "empty-status.yaml": "",
      "deployment.yaml": DEPLOYMENT,
    };
    await Promise.all(Object.entries(files).map(([name, text]) => writeFile(file(name), text)));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const interpret = (...args: string[]) => flotillactl(["interpret", "-f", file("widget-customization.yaml"), ...args]);
  const json = async (...args: string[]): Promise<unknown> => {
    const run = await interpret(...args, "-o", "json");
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout);
  };

  it("--check passes a good customization: every operation PASS, exit 0", async () => {
    const run = await interpret("--check");
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    assert.deepEqual(lines.slice(0, 4), ["-----------------------------------", "SOURCE: widget", "TARGET: example.com/v1 Widget", "RULERS:"]);
    for (const op of ["Retain", "InterpretReplica", "InterpretComponent", "ReviseReplica", "InterpretStatus", "AggregateStatus", "InterpretHealth", "InterpretDependency"]) {
      assert.ok(lines.some((l) => new RegExp(`^ {4}${op}: +PASS$`).test(l)), `${op} PASS in:\n${run.stdout}`);
    }
  });

  it("--check refuses a bad script with the Lua line, exit 1", async () => {
    const run = await flotillactl(["interpret", "-f", file("bad-customization.yaml"), "--check"]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^ {4}InterpretHealth: +ERROR: luaScript:4: .*near 'end'$/m);
    assert.match(run.stdout, /^ {4}Retain: +UNSET$/m);
    assert.match(run.stderr, /1 of 1 customizations failed the check/);
  });

  it("every operation with -o json gives Karmada's result names", async () => {
    const desired = ["--desired-file", file("desired.yaml")];
    const observed = ["--observed-file", file("observed.yaml")];
    const [retained, replica, components, revised, status, aggregated, healthy, dependencies] = await Promise.all([
      json("--operation", "Retain", ...desired, ...observed),
      json("--operation", "InterpretReplica", ...desired),
      json("--operation", "InterpretComponent", ...desired),
      json("--operation", "ReviseReplica", ...desired, "--desired-replica", "5"),
      json("--operation", "InterpretStatus", ...observed),
      json("--operation", "AggregateStatus", ...desired, "--status-file", file("status.yaml")),
      json("--operation", "InterpretHealth", ...observed),
      json("--operation", "InterpretDependency", ...desired),
    ]);
    assert.equal((retained as { retained: { spec: { paused: boolean } } }).retained.spec.paused, true);
    assert.deepEqual(replica, { replica: 3, requires: { resourceRequest: { cpu: "250m" } } });
    assert.deepEqual(components, { components: [{ name: "leader", replicas: 1 }, { name: "worker", replicas: 3 }] });
    assert.equal((revised as { revised: { spec: { fleet: { count: number } } } }).revised.spec.fleet.count, 5);
    assert.deepEqual(status, { status: { ready: 2, phase: "Running" } });
    assert.deepEqual((aggregated as { aggregatedStatus: { status: unknown } }).aggregatedStatus.status, { ready: 5, members: 2 });
    assert.deepEqual(healthy, { healthy: true });
    assert.deepEqual(dependencies, { dependencies: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "demo", name: "widget-config" }] });
  });

  it("AggregateStatus without --status-file gives the script nil; a file of none an empty list", async () => {
    const desired = ["--operation", "AggregateStatus", "--desired-file", file("desired.yaml")];
    const [none, empty] = await Promise.all([json(...desired), json(...desired, "--status-file", file("empty-status.yaml"))]);
    assert.deepEqual((none as { aggregatedStatus: { status: unknown } }).aggregatedStatus.status, { members: "no status items" });
    assert.deepEqual((empty as { aggregatedStatus: { status: unknown } }).aggregatedStatus.status, { ready: 0, members: 0 });
  });

  it("without -o: karmadactl's numbered YAML blocks; --operation in lower case is accepted", async () => {
    const run = await interpret("--operation", "interpretReplica", "--desired-file", file("desired.yaml"));
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "---\n# [1/2] replica:\n3\n---\n# [2/2] requires:\nresourceRequest:\n  cpu: 250m\n");
    const health = await interpret("--operation", "interpretHealth", "--observed-file", file("observed.yaml"));
    assert.equal(health.code, 0, health.stderr);
    assert.equal(health.stdout, "---\n# [1/1] healthy:\ntrue\n");
  });

  it("an unknown operation is refused with exit 2", async () => {
    const run = await interpret("--operation", "interpretFoo", "--observed-file", file("observed.yaml"));
    assert.equal(run.code, 2);
    assert.match(run.stderr, /operation interpretFoo is not supported\. Use one of: Retain, InterpretReplica/);
    assert.equal(run.stdout, "");
  });

  it("a script that fails, and a kind the file does not customize (no native fallback, as karmadactl), exit 1", async () => {
    const failing = await interpret("--operation", "InterpretStatus", "--desired-file", file("desired.yaml"));
    assert.equal(failing.code, 1);
    assert.match(failing.stderr, /Execute InterpretStatus error: luaScript:2: attempt to index a nil value/);
    const deployment = await interpret("--operation", "InterpretReplica", "--desired-file", file("deployment.yaml"));
    assert.equal(deployment.code, 1);
    assert.match(deployment.stderr, /Execute InterpretReplica error: rule is not enabled/);
  });

  it("a missing input is bad usage, exit 2", async () => {
    const run = await interpret("--operation", "Retain", "--desired-file", file("desired.yaml"));
    assert.equal(run.code, 2);
    assert.match(run.stderr, /observed, observed-file options are not set/);
  });
});
