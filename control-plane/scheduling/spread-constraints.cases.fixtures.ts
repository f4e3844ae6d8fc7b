// The spread constraint tables, shared by the table tests and the order-independence property test.
import type { SpreadConstraint } from "./spread-constraints.ts";
import { type Case, cluster, clusters, everyRegional, label, only, provider, region, zone } from "./spread-constraints.fixtures.ts";

/** Regions, zones, providers, labels. */
export const regionCases: Case[] = [
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

];

/** Coarse to fine, the cluster level, validation. */
export const levelCases: Case[] = [
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
  // Karmada defaults a constraint with neither field nor label to spreadByField: cluster (issue 39).
  { name: "neither spreadByField nor spreadByLabel is by cluster: maxGroups 1 keeps the first name", constraints: [{ maxGroups: 1 }], want: ["ap-1"] },
  { name: "neither spreadByField nor spreadByLabel is by cluster: maxGroups 1 keeps the previous target", constraints: [{ maxGroups: 1 }], previous: ["us-2"], want: ["us-2"] },
  { name: "neither spreadByField nor spreadByLabel is by cluster, under a region", constraints: [{ maxGroups: 2 }, region({ max: 1 })], previous: ["eu-2"], want: ["eu-1", "eu-2"] },
  { name: "neither spreadByField nor spreadByLabel is by cluster: minGroups above the candidates", constraints: [{ minGroups: 3 }], candidates: only("eu-1", "us-1"), want: { error: "spreadConstraints: 2 clusters available (eu-1, us-1), minGroups is 3" } },
  { name: "neither spreadByField nor spreadByLabel beside spreadByField cluster is the same constraint twice", constraints: [{}, clusters({ max: 1 })], want: { error: "spreadConstraints[1]: cluster is already constrained by spreadConstraints[0]" } },
  {
    name: "both spreadByField and spreadByLabel",
    constraints: [region({}), { spreadByField: "zone", spreadByLabel: "tier" }],
    want: { error: "spreadConstraints[1]: set at most one of spreadByField and spreadByLabel" },
  },
  { name: "an empty spreadByLabel is unset: by cluster", constraints: [{ spreadByLabel: "", maxGroups: 1 }], previous: ["eu-1"], want: ["eu-1"] },
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
