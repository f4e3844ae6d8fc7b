// The workload usage rules kwok evaluates: which pods a rule covers and what a rule replaces.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type UsageRule, usageExpression, withRule } from "./usage.ts";

const web: UsageRule = { namespace: "demo", matchLabels: { app: "web" }, cpu: "900m", memory: "64Mi" };
const api: UsageRule = { namespace: "demo", matchLabels: { tier: "api", app: "api" }, cpu: "200m", memory: "32Mi" };

describe("usageExpression", () => {
  const cases: { name: string; rules: UsageRule[]; resource: "cpu" | "memory"; want: string }[] = [
    { name: "no rule: every pod uses the fallback", rules: [], resource: "cpu", want: 'Quantity("1m")' },
    {
      name: "one rule: namespace and each label, else the fallback",
      rules: [web],
      resource: "cpu",
      want: 'pod.metadata.namespace == "demo" && ("app" in pod.metadata.labels && pod.metadata.labels["app"] == "web") ? Quantity("900m") : (Quantity("1m"))',
    },
    {
      name: "rules in order, labels sorted, the asked resource",
      rules: [web, api],
      resource: "memory",
      want:
        'pod.metadata.namespace == "demo" && ("app" in pod.metadata.labels && pod.metadata.labels["app"] == "web") ? Quantity("64Mi") : ' +
        '(pod.metadata.namespace == "demo" && ("app" in pod.metadata.labels && pod.metadata.labels["app"] == "api") && ' +
        '("tier" in pod.metadata.labels && pod.metadata.labels["tier"] == "api") ? Quantity("32Mi") : (Quantity("1m")))',
    },
    {
      name: "no labels: the whole namespace",
      rules: [{ namespace: "batch", matchLabels: {}, cpu: "2", memory: "1Gi" }],
      resource: "cpu",
      want: 'pod.metadata.namespace == "batch" ? Quantity("2") : (Quantity("1m"))',
    },
    {
      name: "quotes in values stay inside the CEL string",
      rules: [{ namespace: "demo", matchLabels: { app: 'we"b' }, cpu: "1", memory: "1Mi" }],
      resource: "cpu",
      want: 'pod.metadata.namespace == "demo" && ("app" in pod.metadata.labels && pod.metadata.labels["app"] == "we\\"b") ? Quantity("1") : (Quantity("1m"))',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(usageExpression(c.rules, c.resource, "1m"), c.want);
    });
  }
});

describe("withRule", () => {
  it("appends a rule for new labels and replaces one for the same namespace and labels, in place", () => {
    const rules = withRule(withRule([], web), api);
    assert.deepEqual(rules, [web, api]);
    const hotter = { ...web, cpu: "1500m" };
    assert.deepEqual(withRule(rules, hotter), [hotter, api]);
    const sameLabelsOtherOrder = { ...api, matchLabels: { app: "api", tier: "api" }, cpu: "1" };
    assert.deepEqual(withRule(rules, sameLabelsOtherOrder), [web, sameLabelsOtherOrder]);
    const otherNamespace = { ...web, namespace: "prod" };
    assert.deepEqual(withRule(rules, otherNamespace), [web, api, otherNamespace]);
  });
});
