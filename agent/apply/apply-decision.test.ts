import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { containsFields, decideApply } from "./apply-decision.ts";

const obj = (labels?: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", labels } });
const ns = (annotations?: Record<string, string>, labels?: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop", annotations, labels } });

describe("decideApply", () => {
  const cases: { name: string; live: KubeObject | undefined; cr: string; want: string }[] = [
    { name: "absent → apply", live: undefined, cr: "Abort", want: "apply" },
    { name: "ours → apply", live: obj({ "flotilla.dev/work": "w1" }), cr: "Abort", want: "apply" },
    { name: "someone else's, Abort → AlreadyExists", live: obj(), cr: "Abort", want: "AlreadyExists" },
    { name: "someone else's, Overwrite → apply", live: obj({ app: "x" }), cr: "Overwrite", want: "apply" },
    { name: "another Work's, Abort → AlreadyExists", live: obj({ "flotilla.dev/work": "w2" }), cr: "Abort", want: "AlreadyExists" },
    { name: "managed=false beats ours", live: obj({ "flotilla.dev/work": "w1", "flotilla.dev/managed": "false" }), cr: "Abort", want: "ManagedLabelFalse" },
    { name: "managed=false beats Overwrite", live: obj({ "flotilla.dev/managed": "false" }), cr: "Overwrite", want: "ManagedLabelFalse" },
    { name: "managed=true is just a label", live: obj({ "flotilla.dev/managed": "true" }), cr: "Overwrite", want: "apply" },
    { name: "a namespace the agent created for a Work's objects, Abort → apply (the Namespace template takes it over)", live: ns({ "flotilla.dev/created-by-agent": "true" }), cr: "Abort", want: "apply" },
    { name: "a namespace someone else created, Abort → AlreadyExists", live: ns(), cr: "Abort", want: "AlreadyExists" },
    { name: "a namespace the agent created that another Work now holds, Abort → AlreadyExists", live: ns({ "flotilla.dev/created-by-agent": "true" }, { "flotilla.dev/work": "w2" }), cr: "Abort", want: "AlreadyExists" },
    { name: "a namespace the agent created, marked managed=false → ManagedLabelFalse", live: ns({ "flotilla.dev/created-by-agent": "true" }, { "flotilla.dev/managed": "false" }), cr: "Abort", want: "ManagedLabelFalse" },
    { name: "the annotation on a kind other than Namespace means nothing", live: { ...obj(), metadata: { name: "c", annotations: { "flotilla.dev/created-by-agent": "true" } } }, cr: "Abort", want: "AlreadyExists" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = decideApply(c.live, "w1", c.cr);
      assert.equal(d.action === "apply" ? "apply" : d.reason, c.want);
      if (d.action === "skip") assert.ok(d.message.length > 0);
    });
  }
});

describe("containsFields", () => {
  const cases: { name: string; have: unknown; want: unknown; holds: boolean }[] = [
    { name: "live adds defaults and status", have: { spec: { replicas: 2, strategy: {} }, status: {} }, want: { spec: { replicas: 2 } }, holds: true },
    { name: "an edited field", have: { spec: { replicas: 5 } }, want: { spec: { replicas: 2 } }, holds: false },
    { name: "a removed field", have: { data: {} }, want: { data: { a: "1" } }, holds: false },
    { name: "lists compare by position", have: { ports: [{ port: 80, protocol: "TCP" }] }, want: { ports: [{ port: 80 }] }, holds: true },
    { name: "a list of another length", have: { ports: [{ port: 80 }, { port: 81 }] }, want: { ports: [{ port: 80 }] }, holds: false },
    { name: "scalars", have: "a", want: "a", holds: true },
    { name: "an empty list the apiserver leaves out is no drift", have: { spec: { containers: [{ name: "c" }] } }, want: { spec: { containers: [{ name: "c", args: [] }] } }, holds: true },
    { name: "an empty map the apiserver leaves out is no drift", have: { spec: {} }, want: { spec: { nodeSelector: {} } }, holds: true },
    { name: "a zero value the apiserver leaves out (omitempty) is no drift", have: { spec: {} }, want: { spec: { hostNetwork: false, priority: 0, subdomain: "" } }, holds: true },
    { name: "a zero value someone changed is drift", have: { spec: { hostNetwork: true } }, want: { spec: { hostNetwork: false } }, holds: false },
    { name: "a quantity the apiserver normalises (1000m → 1) is no drift", have: { resources: { requests: { cpu: "1" } } }, want: { resources: { requests: { cpu: "1000m" } } }, holds: true },
    { name: "a number quantity read back as a string is no drift", have: { resources: { limits: { cpu: "2", memory: "1Gi" } } }, want: { resources: { limits: { cpu: 2, memory: "1024Mi" } } }, holds: true },
    { name: "a changed quantity is drift", have: { resources: { requests: { cpu: "500m" } } }, want: { resources: { requests: { cpu: "1" } } }, holds: false },
    { name: "outside resources, strings compare as they are", have: { data: { v: "1" } }, want: { data: { v: "1.0" } }, holds: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(containsFields(c.have, c.want), c.holds));
});
