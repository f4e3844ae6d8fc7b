// fast-check generators of PropagationPolicy and OverridePolicy specs for policy-fuzz.test.ts:
// plausible but wrong (bad selectors and operators, negative weights, unknown clusters, huge
// replica counts, bad patch paths and image components, wrong types) and plain junk.
import fc from "fast-check";

/** Mostly one of the valid values, now and then a wrong one: a spec holds many fields, and each must get a chance to be the only wrong one. */
const pick = <T>(valid: T[], wrong: T[]) => fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: fc.constantFrom(...wrong) });
/** Mostly the right shape, now and then any JSON at all in its place. */
const orJunk = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 30, arbitrary: arb }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
const clusterNames = fc.array(pick(["member1", "member2", "ghost"], ["", "Member1", "a".repeat(300)]), { maxLength: 3 });
const word = pick(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"], ["Bogus", ""]);

/** Values that fit the operator, now and then ones that do not (Gt and Lt take one integer; Exists none). */
const valuesFor = (op: string) =>
  op === "Gt" || op === "Lt" ? pick([["3"], ["0"]], [["ten"], ["1", "2"]]) : op === "Exists" || op === "DoesNotExist" ? pick([[]], [["x"]]) : fc.array(pick(["1", "us-east", "a"], ["", "x".repeat(70)]), { minLength: 1, maxLength: 3 });
const expression = fc.record({ key: pick(["region", "gpus"], ["", "bad key!"]), operator: word }).chain((e) => valuesFor(e.operator).map((values) => ({ ...e, values })));
const labelSelector = fc.record(
  {
    matchLabels: fc.dictionary(pick(["region", "tier"], ["bad key!", ""]), pick(["a", ""], ["x".repeat(70)]), { maxKeys: 2 }),
    matchExpressions: fc.array(expression, { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
const fieldSelector = fc.record({
  matchExpressions: fc.array(fc.record({ key: pick(["region", "zone", "provider"], ["bogus"]), operator: pick(["In", "NotIn"], ["Exists", "Gt"]), values: fc.array(pick(["us-east", "eu"], [""]), { minLength: 1, maxLength: 2 }) }), { maxLength: 2 }),
});
const affinity = fc.record(
  { clusterNames: orJunk(clusterNames), exclude: clusterNames, labelSelector: orJunk(labelSelector), fieldSelector: orJunk(fieldSelector) },
  { requiredKeys: [] },
);
const bigInt = fc.oneof({ weight: 16, arbitrary: fc.integer({ min: 0, max: 10 }) }, { weight: 1, arbitrary: fc.constantFrom(-1, 2147483647, 2147483648, -2147483649, 1e12, 1.5) });
const weightEntry = fc.record(
  { targetCluster: affinity, weight: bigInt, minReplicas: bigInt, maxReplicas: bigInt },
  { requiredKeys: ["targetCluster", "weight"] },
);
const replicaScheduling = fc.record(
  {
    replicaSchedulingType: pick(["Duplicated", "Divided"], ["Bogus"]),
    replicaDivisionPreference: pick(["Weighted", "Aggregated"], ["Bogus"]),
    weightPreference: fc.record({ staticWeightList: fc.array(weightEntry, { maxLength: 3 }), dynamicWeight: pick(["AvailableReplicas"], ["Bogus"]) }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);
const groups = fc.uniqueArray(fc.record({ affinityName: pick(["a", "b", "c"], ["", "Bad Name"]), clusterNames }), { maxLength: 3, selector: (g) => g.affinityName });
const groupsBound = fc.record({ minGroups: bigInt, maxGroups: bigInt }, { requiredKeys: [] });
const spread = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(pick(["cluster", "region", "zone", "provider"], ["bogus"]), groupsBound).map(([f, g]) => ({ spreadByField: f, ...g })) },
  { weight: 2, arbitrary: fc.tuple(pick(["tier"], ["bad key!"]), groupsBound).map(([l, g]) => ({ spreadByLabel: l, ...g })) },
  { weight: 1, arbitrary: groupsBound.map((g) => ({ spreadByField: "region", spreadByLabel: "tier", ...g })) },
);
const placement = fc.record(
  {
    // Both at once is refused: now and then only.
    clusterAffinity: fc.oneof({ weight: 8, arbitrary: orJunk(affinity) }, { weight: 1, arbitrary: fc.constant(undefined) }),
    clusterAffinities: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: groups }),
    clusterTolerations: fc.array(fc.record({ key: pick(["k", "x/y"], [""]), operator: pick(["Exists", "Equal"], ["Bogus"]), value: pick(["v", ""], ["v".repeat(70)]), effect: pick(["NoSchedule", "NoExecute", ""], ["Bogus"]) }, { requiredKeys: [] }), { maxLength: 2 }),
    spreadConstraints: fc.array(spread, { maxLength: 2 }),
    replicaScheduling: orJunk(replicaScheduling),
  },
  { requiredKeys: [] },
);
/** Selectors that mostly select the fuzz template, so the controllers have to act on the policy. */
const selectors = (name: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant([{ apiVersion: "apps/v1", kind: "Deployment", name }]) },
    { weight: 1, arbitrary: fc.constant([{ apiVersion: "apps/v1", kind: "Deployment", labelSelector: { matchLabels: { app: name } } }]) },
    { weight: 1, arbitrary: fc.array(fc.record({ apiVersion: pick(["apps/v1", "v1", "nope/v9"], [""]), kind: pick(["Deployment", "Nope"], [""]), name: pick([name, "other"], [""]), labelSelector: labelSelector }, { requiredKeys: [] }), { maxLength: 2 }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );

export function propagationSpec(template: string): fc.Arbitrary<unknown> {
  const plausible = fc.record(
    {
      resourceSelectors: selectors(template),
      placement: orJunk(placement),
      priority: bigInt,
      conflictResolution: pick(["Abort", "Overwrite"], ["Bogus"]),
      propagateDeps: orJunk(fc.boolean()),
      suspension: fc.record({ dispatching: fc.boolean(), dispatchingOnClusters: fc.record({ clusterNames }) }, { requiredKeys: [] }),
    },
    { requiredKeys: ["resourceSelectors"] },
  );
  return fc.oneof({ weight: 15, arbitrary: plausible }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) });
}

const PATHS = ["/spec/replicas", "/spec/template/spec/containers/0/image", "/spec/template/spec/containers/9/image", "/metadata/labels/x", "/metadata/labels", "/spec/nope/deep", "spec/replicas", "", "/", "/~2bad", "/spec/template/spec/containers/-"];
// Never a large replica count in a member: the fuzz must not ask kwok for millions of pods.
const patchValue = (path: string) => (path === "/spec/replicas" ? fc.oneof(fc.integer({ min: -2, max: 4 }), fc.constantFrom("three", null, 1.5)) : fc.jsonValue({ maxDepth: 2 }));
const plaintext = pick(PATHS.slice(0, 9), PATHS.slice(9)).chain((path) => fc.record({ path: fc.constant(path), operator: pick(["add", "remove", "replace"], ["bogus"]), value: patchValue(path) }, { requiredKeys: ["path"] }));
const image = fc.record(
  {
    component: pick(["Registry", "Repository", "Tag"], ["Bogus"]),
    operator: pick(["add", "remove", "replace"], ["bogus"]),
    value: pick(["1.26", "registry.example:5000", "UPPER", "a b", "", "::", "nginx@sha256:abc"], ["x".repeat(300)]),
    predicate: fc.record({ path: pick(["/spec/template/spec/containers/0/image", "/nope"], [""]) }),
  },
  { requiredKeys: ["component"] },
);
const mapOverrider = fc.record({ operator: pick(["add", "remove", "replace"], ["bogus"]), value: fc.dictionary(pick(["ok", "a/b/c", "app"], ["bad key!", "", "x".repeat(70)]), pick(["v", "", "1"], ["y".repeat(70), "bad value!"]), { maxKeys: 2 }) }, { requiredKeys: ["operator"] });
const argsOverrider = fc.record({ containerName: pick(["web", "ghost"], [""]), operator: pick(["add", "remove"], ["bogus"]), value: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }) }, { requiredKeys: ["containerName", "operator"] });
const overriders = fc.record(
  {
    plaintext: fc.array(plaintext, { maxLength: 3 }),
    imageOverrider: fc.array(image, { maxLength: 2 }),
    labelsOverrider: fc.array(mapOverrider, { maxLength: 2 }),
    annotationsOverrider: fc.array(mapOverrider, { maxLength: 2 }),
    commandOverrider: fc.array(argsOverrider, { maxLength: 2 }),
    argsOverrider: fc.array(argsOverrider, { maxLength: 2 }),
  },
  { requiredKeys: [] },
);

export function overrideSpec(template: string): fc.Arbitrary<unknown> {
  const plausible = fc.record(
    {
      resourceSelectors: fc.constant([{ apiVersion: "apps/v1", kind: "Deployment", name: template }]),
      overrideRules: fc.array(fc.record({ targetCluster: orJunk(affinity), overriders: orJunk(overriders) }, { requiredKeys: ["overriders"] }), { minLength: 1, maxLength: 2 }),
    },
    { requiredKeys: ["resourceSelectors", "overrideRules"] },
  );
  return fc.oneof({ weight: 15, arbitrary: plausible }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) });
}
