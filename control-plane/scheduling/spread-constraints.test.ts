import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, ClusterSpec } from "../../shared/api/types.ts";
import { applySpreadConstraints } from "./spread-constraints.ts";
import type { SpreadConstraint, SpreadResult } from "./spread-constraints.ts";

function cluster(name: string, spec: ClusterSpec = {}, labels?: Record<string, string>): Cluster {
  return { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name, labels }, spec };
}

// Deliberately not in name order: the answer must come back sorted.
// Regions: us has 3 clusters over 2 zones, eu 2 over 2 zones, ap 1.
const fleet: Cluster[] = [
  cluster("us-3", { provider: "gcp", region: "us", zone: "us-b" }),
  cluster("eu-1", { provider: "aws", region: "eu", zone: "eu-a" }, { tier: "gold" }),
  cluster("ap-1", { provider: "azure", region: "ap", zone: "ap-a" }, { tier: "silver" }),
  cluster("us-1", { provider: "gcp", region: "us", zone: "us-a" }, { tier: "gold" }),
  cluster("nowhere", {}, { tier: "gold" }),
  cluster("eu-2", { provider: "aws", region: "eu", zone: "eu-b" }, { tier: "silver" }),
  cluster("us-2", { provider: "gcp", region: "us", zone: "us-a" }, { tier: "gold" }),
];

function only(...names: string[]): Cluster[] {
  return fleet.filter((c) => names.includes(c.metadata.name ?? ""));
}

interface Bounds {
  min?: number;
  max?: number;
}
function by(spreadByField: SpreadConstraint["spreadByField"]): (bounds: Bounds) => SpreadConstraint {
  return (bounds) => ({ spreadByField, minGroups: bounds.min, maxGroups: bounds.max });
}
const region = by("region");
const zone = by("zone");
const provider = by("provider");
const clusters = by("cluster");
const label = (key: string, bounds: Bounds): SpreadConstraint => ({ spreadByLabel: key, minGroups: bounds.min, maxGroups: bounds.max });

const everyRegional = ["ap-1", "eu-1", "eu-2", "us-1", "us-2", "us-3"];

interface Case {
  name: string;
  constraints: SpreadConstraint[];
  candidates?: Cluster[];
  previous?: string[];
  capacity?: Record<string, number>;
  /** Either the chosen clusters (sorted) or the exact error. */
  want: string[] | { error: string };
}

const cases: Case[] = [
  // ---- no constraints ----
  { name: "no constraints: every candidate, sorted", constraints: [], want: ["ap-1", "eu-1", "eu-2", "nowhere", "us-1", "us-2", "us-3"] },
  { name: "no constraints, no candidates: nothing", constraints: [], candidates: [], want: [] },
  { name: "no constraints: previous and capacity change nothing", constraints: [], candidates: only("eu-1", "us-1"), previous: ["eu-1"], capacity: { "us-1": 5 }, want: ["eu-1", "us-1"] },
  {
    name: "a candidate without a name is ignored",
    constraints: [],
    candidates: [cluster("b"), { ...cluster(""), metadata: {} }, cluster("a")],
    want: ["a", "b"],
  },

  // ---- region maxGroups 1: which region stays ----
  { name: "region maxGroups 1 keeps the region holding the previous targets", constraints: [region({ max: 1 })], previous: ["eu-2"], want: ["eu-1", "eu-2"] },
  { name: "region maxGroups 1: the region with the most previous targets wins", constraints: [region({ max: 1 })], previous: ["eu-1", "us-1", "us-3"], want: ["us-1", "us-2", "us-3"] },
  {
    name: "region maxGroups 1: previous targets beat capacity",
    constraints: [region({ max: 1 })],
    previous: ["ap-1"],
    capacity: { "us-1": 100, "eu-1": 50 },
    want: ["ap-1"],
  },
  {
    name: "region maxGroups 1: previous targets no longer among the candidates count for nothing",
    constraints: [region({ max: 1 })],
    candidates: only("eu-1", "eu-2", "ap-1"),
    previous: ["us-1", "us-2", "ap-1"],
    want: ["ap-1"],
  },
  {
    name: "region maxGroups 1, no previous: the region with the most room in total",
    constraints: [region({ max: 1 })],
    capacity: { "eu-1": 10, "ap-1": 12, "us-1": 3, "us-2": 3, "us-3": 3 },
    want: ["ap-1"],
  },
  {
    name: "region maxGroups 1: capacity beats cluster count",
    constraints: [region({ max: 1 })],
    capacity: { "eu-1": 4, "eu-2": 4, "us-1": 2, "us-2": 2, "us-3": 2 },
    want: ["eu-1", "eu-2"],
  },
  {
    name: "region maxGroups 1: a cluster missing from capacity counts 0",
    constraints: [region({ max: 1 })],
    capacity: { "ap-1": 1 },
    want: ["ap-1"],
  },
  { name: "region maxGroups 1, no previous, no capacity: the region with the most clusters", constraints: [region({ max: 1 })], want: ["us-1", "us-2", "us-3"] },
  {
    name: "region maxGroups 1, equal capacity: the region with the most clusters",
    constraints: [region({ max: 1 })],
    capacity: { "eu-1": 3, "eu-2": 3, "us-1": 2, "us-2": 2, "us-3": 2 },
    want: ["us-1", "us-2", "us-3"],
  },
  { name: "region maxGroups 1, all else equal: the lowest region name", constraints: [region({ max: 1 })], candidates: only("us-1", "eu-1", "ap-1"), want: ["ap-1"] },
  { name: "region maxGroups 2 keeps the best two", constraints: [region({ max: 2 })], previous: ["ap-1"], want: ["ap-1", "us-1", "us-2", "us-3"] },
  { name: "region maxGroups above the region count keeps every regional cluster", constraints: [region({ max: 5 })], want: everyRegional },
  { name: "region maxGroups 0 keeps nothing", constraints: [region({ max: 0 })], want: [] },

  // ---- region minGroups ----
  { name: "region minGroups met: every regional cluster", constraints: [region({ min: 3 })], want: everyRegional },
  {
    name: "region minGroups unmet: an error naming the regions",
    constraints: [region({ min: 2 })],
    candidates: only("eu-1", "eu-2", "nowhere"),
    want: { error: "spreadConstraints: 1 region available (eu), minGroups is 2" },
  },
  { name: "region minGroups unmet with no region at all", constraints: [region({ min: 1 })], candidates: only("nowhere"), want: { error: "spreadConstraints: 0 regions available, minGroups is 1" } },
  {
    name: "the error lists at most 10 values",
    constraints: [region({ min: 13 })],
    candidates: Array.from({ length: 12 }, (_, i) => cluster(`c${i}`, { region: `r${String(i).padStart(2, "0")}` })),
    want: { error: "spreadConstraints: 12 regions available (r00, r01, r02, r03, r04, r05, r06, r07, r08, r09, and 2 more), minGroups is 13" },
  },
  { name: "minGroups and maxGroups both met", constraints: [region({ min: 1, max: 1 })], previous: ["eu-1"], want: ["eu-1", "eu-2"] },
  { name: "minGroups 0 constrains nothing but still needs a region", constraints: [region({ min: 0 })], want: everyRegional },

  // ---- clusters that cannot be counted ----
  { name: "a cluster without a region is dropped", constraints: [region({})], want: everyRegional },
  {
    name: "an empty region counts as none",
    constraints: [region({})],
    candidates: [cluster("a", { region: "" }), cluster("b", { region: "eu" })],
    want: ["b"],
  },
  { name: "a cluster lacking any constrained field is dropped", constraints: [region({}), zone({})], candidates: [...only("eu-1"), cluster("z", { region: "eu" })], want: ["eu-1"] },
  { name: "a cluster without the label is dropped", constraints: [label("tier", {})], want: ["ap-1", "eu-1", "eu-2", "nowhere", "us-1", "us-2"] },
  { name: "a cluster without labels at all is dropped", constraints: [label("tier", {})], candidates: only("us-3", "us-1"), want: ["us-1"] },

  // ---- zone, provider, label ----
  { name: "zone maxGroups 1: the zone with the most clusters", constraints: [zone({ max: 1 })], want: ["us-1", "us-2"] },
  { name: "zone + cluster maxGroups 1: the first name in the biggest zone", constraints: [zone({ max: 1 }), clusters({ max: 1 })], want: ["us-1"] },
  { name: "zone + cluster maxGroups 1: the previous target in that zone", constraints: [clusters({ max: 1 }), zone({ max: 1 })], previous: ["us-2"], want: ["us-2"] },
  {
    name: "zone maxGroups 2 + cluster maxGroups 2: one cluster from each zone",
    constraints: [zone({ max: 2 }), clusters({ max: 2 })],
    want: ["ap-1", "us-1"],
  },
  {
    name: "zone minGroups 4 + cluster maxGroups 4: one cluster from each of four zones",
    constraints: [zone({ min: 4 }), clusters({ max: 4 })],
    previous: ["us-1", "us-2"],
    want: ["ap-1", "eu-1", "eu-2", "us-1"],
  },
  { name: "provider maxGroups 1: the provider with the most clusters", constraints: [provider({ max: 1 })], want: ["us-1", "us-2", "us-3"] },
  {
    name: "provider minGroups unmet",
    constraints: [provider({ min: 2 })],
    candidates: only("us-1", "us-2"),
    want: { error: "spreadConstraints: 1 provider available (gcp), minGroups is 2" },
  },
  { name: "label maxGroups 1: the value with the most clusters", constraints: [label("tier", { max: 1 })], want: ["eu-1", "nowhere", "us-1", "us-2"] },
  { name: "label maxGroups 1: the value holding the previous targets", constraints: [label("tier", { max: 1 })], previous: ["ap-1"], want: ["ap-1", "eu-2"] },
  {
    name: "label minGroups unmet: an error naming the label",
    constraints: [label("tier", { min: 2 })],
    candidates: only("us-1", "us-2", "us-3"),
    want: { error: 'spreadConstraints: 1 value of label "tier" available (gold), minGroups is 2' },
  },
  {
    name: "label minGroups + cluster maxGroups: one cluster of each value, previous first",
    constraints: [label("tier", { min: 2 }), clusters({ max: 2 })],
    previous: ["eu-1", "us-1", "eu-2"],
    want: ["eu-1", "eu-2"],
  },
  { name: "label + region: both apply", constraints: [label("tier", { max: 1 }), region({})], want: ["eu-1", "us-1", "us-2"] },
  {
    name: "a label named like a field is a label",
    constraints: [{ spreadByLabel: "region", maxGroups: 1 }],
    candidates: [cluster("a", { region: "eu" }, { region: "x" }), cluster("b", { region: "eu" }, { region: "y" })],
    want: ["a"],
  },

  // ---- coarse to fine ----
  {
    // Zone first would keep ap-a (room 10, against us-a's 8); provider first keeps gcp (12 against 10).
    name: "provider applies before zone, whatever the order given",
    constraints: [zone({ max: 1 }), provider({ max: 1 })],
    capacity: { "us-1": 4, "us-2": 4, "us-3": 4, "ap-1": 10 },
    want: ["us-1", "us-2"],
  },
  {
    name: "labels apply in the order given: a then b",
    constraints: [label("a", { max: 1 }), label("b", { max: 1 })],
    candidates: [cluster("x", {}, { a: "1", b: "1" }), cluster("y", {}, { a: "2", b: "2" }), cluster("z", {}, { a: "2", b: "1" })],
    want: ["z"],
  },
  {
    name: "labels apply in the order given: b then a",
    constraints: [label("b", { max: 1 }), label("a", { max: 1 })],
    candidates: [cluster("x", {}, { a: "1", b: "1" }), cluster("y", {}, { a: "2", b: "2" }), cluster("z", {}, { a: "2", b: "1" })],
    want: ["x"],
  },
  {
    name: "a coarse maxGroups can leave a finer level short",
    constraints: [region({ max: 1 }), zone({ min: 2 })],
    previous: ["ap-1"],
    want: { error: "spreadConstraints: 1 zone available (ap-a), minGroups is 2" },
  },

  // ---- cluster level ----
  { name: "cluster maxGroups: previous targets first", constraints: [clusters({ max: 2 })], previous: ["us-3", "eu-2"], capacity: { "ap-1": 9 }, want: ["eu-2", "us-3"] },
  { name: "cluster maxGroups: then the most room", constraints: [clusters({ max: 2 })], previous: ["us-3"], capacity: { "ap-1": 9, "eu-1": 3, "eu-2": 4 }, want: ["ap-1", "us-3"] },
  { name: "cluster maxGroups: then by name", constraints: [clusters({ max: 3 })], want: ["ap-1", "eu-1", "eu-2"] },
  { name: "cluster maxGroups without a coarser level keeps clusters without a region", constraints: [clusters({ max: 1 })], candidates: only("nowhere", "us-1"), want: ["nowhere"] },
  { name: "cluster minGroups unmet", constraints: [clusters({ min: 3 })], candidates: only("eu-1", "eu-2"), want: { error: "spreadConstraints: 2 clusters available (eu-1, eu-2), minGroups is 3" } },
  {
    name: "cluster maxGroups 2 + region minGroups 2 spreads over two regions, not the two previous in one",
    constraints: [region({ min: 2 }), clusters({ max: 2 })],
    candidates: only("eu-1", "eu-2", "us-1"),
    previous: ["eu-1", "eu-2"],
    want: ["eu-1", "us-1"],
  },
  {
    name: "cluster maxGroups 2 + region minGroups 2: the two best regions, each its best cluster",
    constraints: [region({ min: 2 }), clusters({ max: 2 })],
    capacity: { "ap-1": 1, "us-2": 5, "eu-1": 3 },
    want: ["eu-1", "us-2"],
  },
  {
    name: "cluster maxGroups 3 + region minGroups 2: one from each region before a second from any",
    constraints: [region({ min: 2 }), clusters({ max: 3 })],
    want: ["ap-1", "eu-1", "us-1"],
  },
  {
    name: "cluster maxGroups 4 + region: the fourth is the best region's second",
    constraints: [region({ min: 1 }), clusters({ max: 4 })],
    want: ["ap-1", "eu-1", "us-1", "us-2"],
  },
  {
    name: "region maxGroups 2 + cluster maxGroups 3: two regions, round-robin",
    constraints: [region({ min: 2, max: 2 }), clusters({ max: 3 })],
    previous: ["eu-1"],
    want: ["eu-1", "eu-2", "us-1"],
  },
  {
    name: "cluster round-robin over the finest coarser level still meets a coarser minGroups",
    constraints: [provider({ min: 2 }), zone({}), clusters({ max: 2 })],
    candidates: only("eu-1", "eu-2", "us-1"),
    previous: ["eu-1", "eu-2"],
    want: ["eu-1", "us-1"],
  },
  {
    name: "a zone maxGroups that would leave one region keeps a zone of another",
    constraints: [region({ min: 2 }), zone({ max: 2 })],
    candidates: only("us-1", "us-2", "us-3", "eu-1"),
    previous: ["us-1", "us-3"],
    want: ["eu-1", "us-1", "us-2"],
  },
  {
    name: "a zone maxGroups that cannot keep a coarser minGroups is an error",
    constraints: [region({ min: 2 }), zone({ max: 1 })],
    want: { error: "spreadConstraints: zone maxGroups 1 leaves 1 region (us), minGroups is 2" },
  },
  { name: "cluster maxGroups 0 keeps nothing", constraints: [clusters({ max: 0 })], want: [] },

  // ---- validation ----
  { name: "neither spreadByField nor spreadByLabel", constraints: [{ maxGroups: 1 }], want: { error: "spreadConstraints[0]: set exactly one of spreadByField and spreadByLabel" } },
  {
    name: "both spreadByField and spreadByLabel",
    constraints: [region({}), { spreadByField: "zone", spreadByLabel: "tier" }],
    want: { error: "spreadConstraints[1]: set exactly one of spreadByField and spreadByLabel" },
  },
  { name: "an empty spreadByLabel is unset", constraints: [{ spreadByLabel: "" }], want: { error: "spreadConstraints[0]: set exactly one of spreadByField and spreadByLabel" } },
  { name: "an empty spreadByLabel beside a field is unset", constraints: [{ spreadByField: "region", spreadByLabel: "", maxGroups: 1 }], previous: ["ap-1"], want: ["ap-1"] },
  {
    name: "unknown spreadByField",
    constraints: [{ spreadByField: "country" as "zone" }],
    want: { error: 'spreadConstraints[0].spreadByField: must be one of cluster, region, zone, provider, got "country"' },
  },
  { name: "spreadByLabel not a string", constraints: [{ spreadByLabel: 7 as unknown as string }], want: { error: "spreadConstraints[0].spreadByLabel: must be a string, got 7" } },
  { name: "negative minGroups", constraints: [region({ min: -1 })], want: { error: "spreadConstraints[0].minGroups: must be a non-negative integer, got -1" } },
  { name: "fractional maxGroups", constraints: [zone({}), region({ max: 1.5 })], want: { error: "spreadConstraints[1].maxGroups: must be a non-negative integer, got 1.5" } },
  { name: "NaN minGroups", constraints: [region({ min: NaN })], want: { error: "spreadConstraints[0].minGroups: must be a non-negative integer, got NaN" } },
  { name: "string maxGroups", constraints: [region({ max: "2" as unknown as number })], want: { error: 'spreadConstraints[0].maxGroups: must be a non-negative integer, got "2"' } },
  { name: "minGroups above maxGroups", constraints: [region({ min: 3, max: 2 })], want: { error: "spreadConstraints[0]: minGroups 3 is greater than maxGroups 2" } },
  { name: "the same field twice", constraints: [region({ min: 1 }), zone({}), region({ max: 2 })], want: { error: "spreadConstraints[2]: region is already constrained by spreadConstraints[0]" } },
  { name: "the same label twice", constraints: [label("tier", {}), label("tier", { max: 1 })], want: { error: 'spreadConstraints[1]: label "tier" is already constrained by spreadConstraints[0]' } },
  {
    name: "cluster maxGroups below a coarser minGroups",
    constraints: [clusters({ max: 1 }), region({ min: 2 })],
    want: { error: "spreadConstraints[0]: cluster maxGroups 1 is less than region minGroups 2 (spreadConstraints[1]): that many clusters cannot span that many groups" },
  },
  {
    name: "cluster maxGroups below a label minGroups",
    constraints: [label("tier", { min: 3 }), clusters({ max: 2 })],
    want: { error: 'spreadConstraints[1]: cluster maxGroups 2 is less than label "tier" minGroups 3 (spreadConstraints[0]): that many clusters cannot span that many groups' },
  },
  { name: "a constraint that is not an object", constraints: [null as unknown as SpreadConstraint], want: { error: "spreadConstraints[0]: must be an object" } },
  { name: "spreadConstraints not a list", constraints: {} as SpreadConstraint[], want: { error: "spreadConstraints: must be a list" } },
  { name: "negative capacity", constraints: [region({ max: 1 })], capacity: { "eu-1": -2 }, want: { error: "capacity.eu-1: must be a non-negative integer, got -2" } },
  { name: "a candidate listed twice", constraints: [], candidates: [...only("eu-1"), ...only("eu-1")], want: { error: "candidates: name eu-1 appears twice" } },
  { name: "validation does not need candidates", constraints: [region({ min: 2, max: 1 })], candidates: [], want: { error: "spreadConstraints[0]: minGroups 2 is greater than maxGroups 1" } },
];

function run(c: Omit<Case, "name" | "want">): SpreadResult {
  return applySpreadConstraints({ candidates: c.candidates ?? fleet, constraints: c.constraints, previous: c.previous ?? [], capacity: c.capacity });
}

function want(c: Case): SpreadResult {
  return Array.isArray(c.want) ? { clusters: c.want } : c.want;
}

describe("applySpreadConstraints", () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(run(c), want(c));
    });
  }

  it("gives the same answer whatever the order of candidates, constraints and previous", () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const shuffle = <T>(list: T[]): T[] => {
      const out = [...list];
      for (let i = out.length - 1; i > 0; i--) {
        const j = random(i + 1);
        [out[i], out[j]] = [out[j] as T, out[i] as T];
      }
      return out;
    };
    // Only the order of label constraints among themselves is meaningful, so keep at most one.
    const shufflable = cases.filter((c) => Array.isArray(c.constraints) && c.constraints.filter((x) => x?.spreadByLabel).length <= 1);
    assert.ok(shufflable.length > 50);
    for (const c of shufflable) {
      for (let round = 0; round < 20; round++) {
        const shuffled = {
          candidates: shuffle(c.candidates ?? fleet),
          constraints: shuffle(c.constraints),
          previous: shuffle(c.previous ?? []),
          capacity: c.capacity,
        };
        const got = run(shuffled);
        // A validation error names the index of the constraint, which moves with it.
        if ("error" in got && /^spreadConstraints\[/.test(got.error)) continue;
        assert.deepEqual(got, want(c), `${c.name} / ${JSON.stringify(shuffled.candidates.map((x) => x.metadata.name))}`);
      }
    }
  });

  it("is stable: the chosen region stays chosen when another region gains clusters", () => {
    const constraints = [region({ max: 1 })];
    const before = run({ constraints, candidates: only("eu-1", "eu-2", "us-1") });
    assert.deepEqual(before, { clusters: ["eu-1", "eu-2"] });
    const grown = [...only("eu-1", "eu-2", "us-1"), cluster("us-4", { region: "us", zone: "us-a" }), cluster("us-5", { region: "us", zone: "us-b" })];
    // Without previous targets the bigger region would win …
    assert.deepEqual(run({ constraints, candidates: grown }), { clusters: ["us-1", "us-4", "us-5"] });
    // … with them the binding stays where it is.
    assert.deepEqual(run({ constraints, candidates: grown, previous: ["eu-1", "eu-2"] }), before);
  });

  it("is stable: chosen clusters stay chosen when a roomier cluster joins", () => {
    const constraints = [region({ min: 2 }), clusters({ max: 2 })];
    const before = run({ constraints, candidates: only("eu-1", "eu-2", "us-1", "us-2"), capacity: { "eu-1": 2, "us-2": 2 } });
    assert.deepEqual(before, { clusters: ["eu-1", "us-2"] });
    const grown = [...only("eu-1", "eu-2", "us-1", "us-2"), cluster("eu-9", { region: "eu" })];
    const capacity = { "eu-1": 2, "us-2": 2, "eu-9": 50 };
    assert.deepEqual(run({ constraints, candidates: grown, capacity }), { clusters: ["eu-9", "us-2"] });
    assert.deepEqual(run({ constraints, candidates: grown, capacity, previous: ["eu-1", "us-2"] }), before);
  });

  it("is a fixed point: feeding the answer back as previous gives the same answer", () => {
    for (const c of cases) {
      const first = run(c);
      if (!("clusters" in first)) continue;
      assert.deepEqual(run({ ...c, previous: first.clusters }), first, c.name);
    }
  });

  it("sorts by code unit, not by locale", () => {
    const candidates = [cluster("b"), cluster("B"), cluster("a"), cluster("A")];
    assert.deepEqual(applySpreadConstraints({ candidates, constraints: [], previous: [] }), { clusters: ["A", "B", "a", "b"] });
  });
});
