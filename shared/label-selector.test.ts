import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { LabelSelector } from "./api/types.ts";
import { matchesLabelSelector, validateLabelSelector } from "./label-selector.ts";

const labels = { app: "web", tier: "front", gpus: "4", neg: "-3", big: "9007199254740993", version: "v2" };

describe("matchesLabelSelector", () => {
  const cases: {
    name: string;
    selector: LabelSelector | undefined;
    labels?: Record<string, string> | undefined;
    want: boolean;
  }[] = [
    { name: "undefined selector matches everything", selector: undefined, want: true },
    { name: "undefined selector matches an object without labels", selector: undefined, labels: undefined, want: true },
    { name: "empty selector matches everything", selector: {}, want: true },
    { name: "empty selector matches an object without labels", selector: {}, labels: undefined, want: true },
    { name: "empty matchLabels and matchExpressions match everything", selector: { matchLabels: {}, matchExpressions: [] }, want: true },

    { name: "matchLabels: equal value matches", selector: { matchLabels: { app: "web" } }, want: true },
    { name: "matchLabels: different value fails", selector: { matchLabels: { app: "db" } }, want: false },
    { name: "matchLabels: absent key fails", selector: { matchLabels: { zone: "a" } }, want: false },
    { name: "matchLabels: absent labels fail", selector: { matchLabels: { app: "web" } }, labels: undefined, want: false },
    { name: "matchLabels: every entry must hold", selector: { matchLabels: { app: "web", tier: "back" } }, want: false },
    { name: "matchLabels: empty value matches only an empty label", selector: { matchLabels: { e: "" } }, labels: { e: "" }, want: true },
    { name: "matchLabels: empty value does not match an absent label", selector: { matchLabels: { e: "" } }, want: false },

    { name: "In: value in the list", selector: { matchExpressions: [{ key: "app", operator: "In", values: ["db", "web"] }] }, want: true },
    { name: "In: value not in the list", selector: { matchExpressions: [{ key: "app", operator: "In", values: ["db"] }] }, want: false },
    { name: "In: absent key fails", selector: { matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }, want: false },
    { name: "In: no labels at all fails", selector: { matchExpressions: [{ key: "app", operator: "In", values: ["web"] }] }, labels: undefined, want: false },
    { name: "NotIn: value not in the list holds", selector: { matchExpressions: [{ key: "app", operator: "NotIn", values: ["db"] }] }, want: true },
    { name: "NotIn: value in the list fails", selector: { matchExpressions: [{ key: "app", operator: "NotIn", values: ["web"] }] }, want: false },
    { name: "NotIn: absent key holds", selector: { matchExpressions: [{ key: "zone", operator: "NotIn", values: ["a"] }] }, want: true },
    { name: "NotIn: no labels at all holds", selector: { matchExpressions: [{ key: "app", operator: "NotIn", values: ["web"] }] }, labels: undefined, want: true },
    { name: "Exists: present key holds", selector: { matchExpressions: [{ key: "tier", operator: "Exists" }] }, want: true },
    { name: "Exists: present key with empty value holds", selector: { matchExpressions: [{ key: "e", operator: "Exists" }] }, labels: { e: "" }, want: true },
    { name: "Exists: absent key fails", selector: { matchExpressions: [{ key: "zone", operator: "Exists" }] }, want: false },
    { name: "Exists: empty values list is fine", selector: { matchExpressions: [{ key: "tier", operator: "Exists", values: [] }] }, want: true },
    { name: "DoesNotExist: absent key holds", selector: { matchExpressions: [{ key: "zone", operator: "DoesNotExist" }] }, want: true },
    { name: "DoesNotExist: present key fails", selector: { matchExpressions: [{ key: "app", operator: "DoesNotExist" }] }, want: false },
    { name: "DoesNotExist: no labels at all holds", selector: { matchExpressions: [{ key: "app", operator: "DoesNotExist" }] }, labels: undefined, want: true },

    { name: "Gt: larger label holds", selector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: ["3"] }] }, want: true },
    { name: "Gt: equal label fails", selector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: ["4"] }] }, want: false },
    { name: "Gt: smaller label fails", selector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: ["10"] }] }, want: false },
    { name: "Gt: compares numerically, not as strings", selector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: ["10"] }] }, labels: { gpus: "9" }, want: false },
    { name: "Gt: negative label against negative bound", selector: { matchExpressions: [{ key: "neg", operator: "Gt", values: ["-4"] }] }, want: true },
    { name: "Gt: leading zeros are the same integer", selector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: ["003"] }] }, want: true },
    { name: "Gt: exact beyond 2^53", selector: { matchExpressions: [{ key: "big", operator: "Gt", values: ["9007199254740992"] }] }, want: true },
    { name: "Gt: absent key fails", selector: { matchExpressions: [{ key: "zone", operator: "Gt", values: ["0"] }] }, want: false },
    { name: "Gt: non-integer label value fails", selector: { matchExpressions: [{ key: "version", operator: "Gt", values: ["1"] }] }, want: false },
    { name: "Gt: decimal label value fails", selector: { matchExpressions: [{ key: "g", operator: "Gt", values: ["1"] }] }, labels: { g: "2.5" }, want: false },
    { name: "Gt: empty label value fails", selector: { matchExpressions: [{ key: "g", operator: "Gt", values: ["-1"] }] }, labels: { g: "" }, want: false },
    { name: "Gt: plus-signed label value fails", selector: { matchExpressions: [{ key: "g", operator: "Gt", values: ["1"] }] }, labels: { g: "+5" }, want: false },
    { name: "Gt: non-integer bound fails", selector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: ["two"] }] }, want: false },
    { name: "Gt: decimal bound fails", selector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: ["1.5"] }] }, want: false },
    { name: "Gt: no values fails", selector: { matchExpressions: [{ key: "gpus", operator: "Gt" }] }, want: false },
    { name: "Gt: two values fail", selector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: ["1", "2"] }] }, want: false },
    { name: "Lt: smaller label holds", selector: { matchExpressions: [{ key: "gpus", operator: "Lt", values: ["5"] }] }, want: true },
    { name: "Lt: equal label fails", selector: { matchExpressions: [{ key: "gpus", operator: "Lt", values: ["4"] }] }, want: false },
    { name: "Lt: larger label fails", selector: { matchExpressions: [{ key: "gpus", operator: "Lt", values: ["-1"] }] }, want: false },
    { name: "Lt: negative label below zero holds", selector: { matchExpressions: [{ key: "neg", operator: "Lt", values: ["0"] }] }, want: true },
    { name: "Lt: absent key fails", selector: { matchExpressions: [{ key: "zone", operator: "Lt", values: ["100"] }] }, want: false },
    { name: "Lt: non-integer label value fails", selector: { matchExpressions: [{ key: "version", operator: "Lt", values: ["100"] }] }, want: false },
    { name: "Lt: non-integer bound fails", selector: { matchExpressions: [{ key: "gpus", operator: "Lt", values: ["lots"] }] }, want: false },

    {
      name: "matchLabels and matchExpressions must all hold (all do)",
      selector: {
        matchLabels: { app: "web" },
        matchExpressions: [
          { key: "tier", operator: "In", values: ["front"] },
          { key: "gpus", operator: "Gt", values: ["2"] },
          { key: "zone", operator: "DoesNotExist" },
        ],
      },
      want: true,
    },
    {
      name: "matchLabels and matchExpressions must all hold (one expression fails)",
      selector: {
        matchLabels: { app: "web" },
        matchExpressions: [
          { key: "tier", operator: "In", values: ["front"] },
          { key: "gpus", operator: "Lt", values: ["2"] },
        ],
      },
      want: false,
    },
    {
      name: "matchLabels and matchExpressions must all hold (matchLabels fails)",
      selector: { matchLabels: { app: "db" }, matchExpressions: [{ key: "tier", operator: "Exists" }] },
      want: false,
    },

    // Malformed selectors (past CRD validation) match nothing, even where the operator would hold.
    { name: "malformed: unknown operator matches nothing", selector: { matchExpressions: [{ key: "app", operator: "Equals" as "In", values: ["web"] }] }, want: false },
    { name: "malformed: NotIn without values matches nothing", selector: { matchExpressions: [{ key: "zone", operator: "NotIn", values: [] }] }, want: false },
    { name: "malformed: In without values matches nothing", selector: { matchExpressions: [{ key: "app", operator: "In" }] }, want: false },
    { name: "malformed: DoesNotExist with values matches nothing", selector: { matchExpressions: [{ key: "zone", operator: "DoesNotExist", values: ["x"] }] }, want: false },
    { name: "malformed: empty key matches nothing", selector: { matchExpressions: [{ key: "", operator: "DoesNotExist" }] }, want: false },
    { name: "malformed: bad requirement spoils an otherwise matching selector", selector: { matchLabels: { app: "web" }, matchExpressions: [{ key: "gpus", operator: "Gt", values: ["x"] }] }, want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const have = "labels" in c ? c.labels : labels;
      assert.equal(matchesLabelSelector(c.selector, have), c.want);
    });
  }
});

describe("validateLabelSelector", () => {
  const path = "spec.placement.clusterAffinity.labelSelector";
  const cases: { name: string; selector: unknown; want: string[] }[] = [
    { name: "undefined selector is fine", selector: undefined, want: [] },
    { name: "empty selector is fine", selector: {}, want: [] },
    {
      name: "every well-formed operator is fine",
      selector: {
        matchLabels: { app: "web" },
        matchExpressions: [
          { key: "a", operator: "In", values: ["x"] },
          { key: "b", operator: "NotIn", values: ["x", "y"] },
          { key: "c", operator: "Exists" },
          { key: "d", operator: "DoesNotExist", values: [] },
          { key: "e", operator: "Gt", values: ["-1"] },
          { key: "f", operator: "Lt", values: ["10"] },
        ],
      },
      want: [],
    },
    {
      name: "Gt with a non-integer value",
      selector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: ["two"] }] },
      want: [`${path}.matchExpressions[0].values: Gt needs exactly one integer value`],
    },
    {
      name: "Lt with two values",
      selector: { matchExpressions: [{ key: "a", operator: "Exists" }, { key: "gpus", operator: "Lt", values: ["1", "2"] }] },
      want: [`${path}.matchExpressions[1].values: Lt needs exactly one integer value`],
    },
    {
      name: "Gt without values",
      selector: { matchExpressions: [{ key: "gpus", operator: "Gt" }] },
      want: [`${path}.matchExpressions[0].values: Gt needs exactly one integer value`],
    },
    {
      name: "In without values",
      selector: { matchExpressions: [{ key: "app", operator: "In", values: [] }] },
      want: [`${path}.matchExpressions[0].values: In needs at least one value`],
    },
    {
      name: "NotIn with values missing",
      selector: { matchExpressions: [{ key: "app", operator: "NotIn" }] },
      want: [`${path}.matchExpressions[0].values: NotIn needs at least one value`],
    },
    {
      name: "Exists with values",
      selector: { matchExpressions: [{ key: "app", operator: "Exists", values: ["web"] }] },
      want: [`${path}.matchExpressions[0].values: Exists takes no values`],
    },
    {
      name: "DoesNotExist with values",
      selector: { matchExpressions: [{ key: "app", operator: "DoesNotExist", values: ["web"] }] },
      want: [`${path}.matchExpressions[0].values: DoesNotExist takes no values`],
    },
    {
      name: "unknown operator",
      selector: { matchExpressions: [{ key: "app", operator: "Equals", values: ["web"] }] },
      want: [`${path}.matchExpressions[0].operator: must be one of In, NotIn, Exists, DoesNotExist, Gt, Lt (got "Equals")`],
    },
    {
      name: "missing operator",
      selector: { matchExpressions: [{ key: "app" }] },
      want: [`${path}.matchExpressions[0].operator: must be one of In, NotIn, Exists, DoesNotExist, Gt, Lt (got nothing)`],
    },
    {
      name: "empty key",
      selector: { matchExpressions: [{ key: "", operator: "Exists" }] },
      want: [`${path}.matchExpressions[0].key: must not be empty`],
    },
    {
      name: "values that are not strings",
      selector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: [3] }] },
      want: [`${path}.matchExpressions[0].values: must be a list of strings`],
    },
    {
      name: "a requirement that is not an object",
      selector: { matchExpressions: ["app=web"] },
      want: [`${path}.matchExpressions[0]: must be an object`],
    },
    {
      name: "matchExpressions that is not a list",
      selector: { matchExpressions: { key: "app", operator: "Exists" } },
      want: [`${path}.matchExpressions: must be a list`],
    },
    {
      name: "a matchLabels value that is not a string",
      selector: { matchLabels: { replicas: 3 } },
      want: [`${path}.matchLabels["replicas"]: must be a string`],
    },
    {
      name: "a selector that is not an object",
      selector: "app=web",
      want: [`${path}: must be an object`],
    },
    {
      name: "every problem is reported, in order",
      selector: {
        matchExpressions: [
          { key: "a", operator: "In", values: [] },
          { key: "b", operator: "Exists" },
          { key: "", operator: "Lt", values: ["x"] },
        ],
      },
      want: [
        `${path}.matchExpressions[0].values: In needs at least one value`,
        `${path}.matchExpressions[2].key: must not be empty`,
        `${path}.matchExpressions[2].values: Lt needs exactly one integer value`,
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(validateLabelSelector(c.selector as LabelSelector | undefined, path), c.want);
    });
  }

  it("a selector it faults matches nothing", () => {
    for (const c of cases) {
      if (c.want.length === 0) continue;
      assert.equal(matchesLabelSelector(c.selector as LabelSelector, labels), false, c.name);
    }
  });
});
