import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { containersToRead, LinePrefixer, logPath, type PodsOf, podsOf, selectorString } from "./member-workload.ts";

describe("the pods of a workload", () => {
  const cases: { name: string; obj: Parameters<typeof podsOf>[0]; want: PodsOf }[] = [
    { name: "a Pod is its own", obj: { kind: "Pod", metadata: { name: "web-1" } }, want: { pod: "web-1" } },
    { name: "a Deployment's are those its selector's labels select", obj: { kind: "Deployment", metadata: { name: "web" }, spec: { selector: { matchLabels: { app: "web", tier: "front" } } } }, want: { selector: "app=web,tier=front" } },
    {
      name: "a Job's, with expressions",
      obj: { kind: "Job", metadata: { name: "batch" }, spec: { selector: { matchLabels: { "batch.kubernetes.io/controller-uid": "u1" }, matchExpressions: [{ key: "track", operator: "In", values: ["stable", "canary"] }] } } },
      want: { selector: "batch.kubernetes.io/controller-uid=u1,track in (canary,stable)" },
    },
    { name: "a ReplicationController's plain map", obj: { kind: "ReplicationController", metadata: { name: "old" }, spec: { selector: { app: "old" } } }, want: { selector: "app=old" } },
    { name: "none for a kind without a selector", obj: { kind: "ConfigMap", metadata: { name: "cfg" } }, want: { error: "ConfigMap cfg has no spec.selector: name a Pod or a workload that selects pods" } },
    { name: "none for an empty selector, which would select every pod", obj: { kind: "Deployment", metadata: { name: "all" }, spec: { selector: {} } }, want: { error: "Deployment all selects every pod (an empty selector): name a pod" } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(podsOf(c.obj), c.want));

  const selectors: [Parameters<typeof selectorString>[0], string][] = [
    [{ matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] }, "env notin (prod)"],
    [{ matchExpressions: [{ key: "gpu", operator: "Exists" }, { key: "spot", operator: "DoesNotExist" }] }, "gpu,!spot"],
    [{}, ""],
  ];
  for (const [sel, want] of selectors) it(`writes ${JSON.stringify(sel)} as ${JSON.stringify(want)}`, () => assert.equal(selectorString(sel), want));
});

describe("the containers of a pod to read", () => {
  const pod = { spec: { containers: [{ name: "app" }, { name: "sidecar" }], initContainers: [{ name: "init" }] } };
  const cases: [string | undefined, string[] | { error: string }][] = [
    [undefined, ["app", "sidecar"]],
    ["", ["app", "sidecar"]],
    ["sidecar", ["sidecar"]],
    ["init", ["init"]],
    ["nope", { error: "no container nope (it has app, sidecar, init)" }],
  ];
  for (const [c, want] of cases) it(`with -c ${String(c)} reads ${JSON.stringify(want)}`, () => assert.deepEqual(containersToRead(pod, c), want));
});

describe("a log request", () => {
  const cases: [Parameters<typeof logPath>[3], string][] = [
    [{ follow: false, tail: -1, sinceMs: 0, timestamps: false }, "/api/v1/namespaces/demo/pods/web-1/log?container=app"],
    [{ follow: true, tail: 20, sinceMs: 90_500, timestamps: true }, "/api/v1/namespaces/demo/pods/web-1/log?container=app&follow=true&tailLines=20&sinceSeconds=91&timestamps=true"],
    [{ follow: false, tail: 0, sinceMs: 0, timestamps: false }, "/api/v1/namespaces/demo/pods/web-1/log?container=app&tailLines=0"],
  ];
  for (const [o, want] of cases) it(`is ${want}`, () => assert.equal(logPath("demo", "web-1", "app", o), want));
});

describe("prefixing a log's lines", () => {
  it("prefixes whole lines only, across chunks, and ends a last line without a newline", () => {
    const p = new LinePrefixer("[m1 web-1/app] ");
    assert.equal(p.push("one\ntw"), "[m1 web-1/app] one\n");
    assert.equal(p.push("o"), "");
    assert.equal(p.push("\nthree\n\nfour"), "[m1 web-1/app] two\n[m1 web-1/app] three\n[m1 web-1/app] \n");
    assert.equal(p.end(), "[m1 web-1/app] four\n");
    assert.equal(p.end(), "");
  });
  it("writes nothing for an empty log", () => {
    const p = new LinePrefixer("> ");
    assert.equal(p.push(""), "");
    assert.equal(p.end(), "");
  });
});
