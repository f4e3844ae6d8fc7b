// Karmada's deprecated top-level targetCluster + overriders: one rule, used only when overrideRules
// is absent or empty (Karmada's overridemanager).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { OverridePolicy, OverrideSpec } from "../../shared/api/types.ts";
import { member2, runFailCases, runOkCases } from "./overrides.fixtures.ts";
import { rulesOf } from "./overrides.ts";

function policy(spec: OverrideSpec, name = "old"): OverridePolicy {
  return { apiVersion: "flotilla.dev/v1alpha1", kind: "OverridePolicy", metadata: { namespace: "default", name }, spec };
}

const replicas = (n: number) => ({ plaintext: [{ path: "/spec/replicas", value: n }] });
const onlyMember1 = { clusterNames: ["member1"] };

describe("rulesOf", () => {
  const cases: { name: string; spec: OverrideSpec | undefined; want: ReturnType<typeof rulesOf> }[] = [
    { name: "overrideRules with rules: those", spec: { overrideRules: [{ overriders: replicas(1) }] }, want: { rules: [{ overriders: replicas(1) }], deprecated: false } },
    {
      name: "overrideRules with rules win over a deprecated overriders (which holds only a fieldOverrider: the schema lets that pass, as Karmada's webhook does)",
      spec: { overrideRules: [{ overriders: replicas(1) }], overriders: { fieldOverrider: [{ fieldPath: "/data/a", yaml: [{ subPath: "/x", operator: "remove" }] }] } },
      want: { rules: [{ overriders: replicas(1) }], deprecated: false },
    },
    { name: "no overrideRules: the deprecated form as one rule", spec: { targetCluster: onlyMember1, overriders: replicas(2) }, want: { rules: [{ targetCluster: onlyMember1, overriders: replicas(2) }], deprecated: true } },
    { name: "an empty overrideRules: the deprecated form too", spec: { overrideRules: [], overriders: replicas(2) }, want: { rules: [{ overriders: replicas(2) }], deprecated: true } },
    { name: "a deprecated targetCluster without overriders: a rule that changes nothing", spec: { targetCluster: onlyMember1 }, want: { rules: [{ targetCluster: onlyMember1, overriders: {} }], deprecated: true } },
    { name: "nothing at all: no rule (a policy that overrides nothing)", spec: {}, want: { rules: [], deprecated: false } },
    { name: "no spec: no rule", spec: undefined, want: { rules: [], deprecated: false } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(rulesOf(c.spec), c.want));
});

describe("applyOverrides: the deprecated form", () => {
  runOkCases([
    { name: "applies to the clusters its targetCluster selects", policies: [policy({ targetCluster: onlyMember1, overriders: replicas(2) })], want: { "/spec/replicas": 2 }, applied: ["OverridePolicy/default/old spec.overriders"] },
    { name: "skips the clusters its targetCluster does not select", cluster: member2, policies: [policy({ targetCluster: onlyMember1, overriders: replicas(2) })], want: { "/spec/replicas": 3 }, applied: [] },
    { name: "without targetCluster applies to every cluster", cluster: member2, policies: [policy({ overriders: replicas(4) })], want: { "/spec/replicas": 4 } },
    { name: "a policy without rules changes nothing", policies: [policy({}), policy({ overrideRules: [] }, "empty")], want: { "/spec/replicas": 3 }, applied: [] },
    {
      name: "runs in the policy's place among the others (by name)",
      policies: [policy({ overrideRules: [{ overriders: replicas(5) }] }, "b"), policy({ overriders: replicas(6) }, "a")],
      want: { "/spec/replicas": 5 },
      applied: ["OverridePolicy/default/a spec.overriders", "OverridePolicy/default/b rule 0"],
    },
  ]);
  runFailCases([
    { name: "a failure names spec.overriders", policies: [policy({ overriders: { plaintext: [{ path: "/spec/nope", operator: "remove" }] } })], message: "OverridePolicy default/old spec.overriders plaintext[0]: path /spec/nope does not exist" },
  ]);
});
