// Spread constraints (Karmada's placement.spreadConstraints): which of the placed clusters a binding
// targets when the policy bounds how many providers, regions, zones, label values or clusters it
// spans. Pure and deterministic: the scheduler passes the clusters that passed placement, the
// clusters the binding targets now and, when it knows it, each cluster's room; the answer never
// depends on the order of the inputs.
//
// Constraints apply coarse to fine (provider, region, zone, labels in the order given, cluster). At
// each level the remaining clusters are grouped by their value; too few groups is an error, and
// beyond maxGroups the best-ranked groups stay: those holding the most current targets (so a binding
// does not move when the fleet grows), then the most room, the most clusters, the lowest value.

import type { Cluster, SpreadConstraint } from "../../shared/api/types.ts";

export type { SpreadConstraint };

/** The chosen cluster names, sorted ascending, or why no choice meets the constraints. */
export type SpreadResult = { clusters: string[] } | { error: string };

type Field = NonNullable<SpreadConstraint["spreadByField"]>;

const FIELDS: readonly Field[] = ["cluster", "region", "zone", "provider"];
/** Field levels from coarse to fine; label levels come after them and `cluster` last. */
const FIELD_ORDER: readonly Field[] = ["provider", "region", "zone"];
/** How many group values an error message lists. */
const LISTED = 10;

/**
 * The clusters the constraints let the binding target: every candidate when there are none.
 * Candidates without a name are ignored; a candidate without a value for a constrained field or
 * label (unset or empty) cannot be counted, so is never chosen.
 */
export function applySpreadConstraints(input: {
  candidates: Cluster[];
  constraints: SpreadConstraint[];
  previous: string[];
  capacity?: Record<string, number>;
}): SpreadResult {
  try {
    return { clusters: spread(input.candidates, input.constraints, input.previous, input.capacity) };
  } catch (err) {
    if (err instanceof Refusal) return { error: err.message };
    throw err;
  }
}

/** Why the constraints cannot be met; becomes SpreadResult's `error`. */
class Refusal extends Error {}

/** One constrained level. */
interface Level {
  /** Where the constraint sits in spreadConstraints. */
  index: number;
  field?: Field;
  label?: string;
  /** `region`, or `label "tier"`. */
  name: string;
  min: number;
  max?: number;
}

/** A candidate with everything ranking needs; `keys[i]` is its value at `levels[i]`. */
interface Candidate {
  name: string;
  keys: string[];
  previous: boolean;
  capacity: number;
}

/** The clusters of one value at one level. */
interface Group {
  key: string;
  members: Candidate[];
  previous: number;
  capacity: number;
}

function spread(
  clusters: Cluster[],
  constraints: SpreadConstraint[],
  previousNames: string[],
  capacityByName: Record<string, number> | undefined,
): string[] {
  const levels = parseConstraints(constraints);
  const capacity = checkCapacity(capacityByName);
  const previous = new Set<string>(previousNames ?? []);

  let remaining: Candidate[] = [];
  for (const [name, cluster] of namedClusters(clusters)) {
    const keys = levels.map((level) => groupKey(level, name, cluster));
    if (keys.some((key) => key === undefined)) continue;
    remaining.push({ name, keys: keys as string[], previous: previous.has(name), capacity: capacity.get(name) ?? 0 });
  }

  levels.forEach((level, i) => {
    const groups = partition(remaining, i);
    if (groups.length < level.min) {
      const keys = groups.map((g) => g.key);
      throw new Refusal(`spreadConstraints: ${count(keys.length, level)} available${listed(keys)}, minGroups is ${level.min}`);
    }
    if (level.max === undefined || groups.length <= level.max) return;
    const items = level.field === "cluster" ? roundRobin(remaining, i) : groups.map((g) => g.members);
    remaining = keep(items, level.max, levels, i);
  });
  return remaining.map((c) => c.name).sort(compareStrings);
}

// The level's first `max` items in order of preference, unless that leaves a coarser level short of
// its minGroups: then, item by item, the best one that adds a value the coarsest short level lacks.
function keep(items: Candidate[][], max: number, levels: Level[], at: number): Candidate[] {
  const literal = items.slice(0, max).flat();
  if (shortLevel(literal, levels, at) === undefined) return literal;

  const chosen: Candidate[][] = [];
  const covered = levels.slice(0, at).map(() => new Set<string>());
  let rest = items;
  while (chosen.length < max && rest.length > 0) {
    let pick: Candidate[] | undefined;
    for (let j = 0; j < at && pick === undefined; j++) {
      if (covered[j]!.size >= levels[j]!.min) continue;
      pick = rest.find((item) => item.some((c) => !covered[j]!.has(c.keys[j]!)));
    }
    pick ??= rest[0]!;
    chosen.push(pick);
    for (const c of pick) c.keys.slice(0, at).forEach((key, j) => covered[j]!.add(key));
    rest = rest.filter((item) => item !== pick);
  }
  const kept = chosen.flat();
  const short = shortLevel(kept, levels, at);
  if (short !== undefined) {
    const level = levels[short]!;
    const keys = distinct(kept, short);
    throw new Refusal(
      `spreadConstraints: ${levels[at]!.name} maxGroups ${max} leaves ${count(keys.length, level)}${listed(keys)}, minGroups is ${level.min}`,
    );
  }
  return kept;
}

/** The first level coarser than `at` whose minGroups the clusters do not meet. */
function shortLevel(clusters: Candidate[], levels: Level[], at: number): number | undefined {
  for (let j = 0; j < at; j++) {
    if (distinct(clusters, j).length < levels[j]!.min) return j;
  }
  return undefined;
}

function distinct(clusters: Candidate[], level: number): string[] {
  return [...new Set(clusters.map((c) => c.keys[level]!))].sort(compareStrings);
}

// The `cluster` level's order of preference: one cluster from each group of the finest coarser
// level before a second from any, groups in rank order, each group's clusters best first.
function roundRobin(clusters: Candidate[], at: number): Candidate[][] {
  const groups = at === 0 ? [clusters] : partition(clusters, at - 1).map((g) => g.members);
  const ranked = groups.map((members) => [...members].sort(compareClusters));
  const order: Candidate[][] = [];
  for (let round = 0; order.length < clusters.length; round++) {
    for (const members of ranked) {
      const c = members[round];
      if (c !== undefined) order.push([c]);
    }
  }
  return order;
}

/** The clusters grouped by their value at `levels[level]`, best group first. */
function partition(clusters: Candidate[], level: number): Group[] {
  const byKey = new Map<string, Group>();
  for (const c of clusters) {
    const key = c.keys[level]!;
    let group = byKey.get(key);
    if (group === undefined) {
      group = { key, members: [], previous: 0, capacity: 0 };
      byKey.set(key, group);
    }
    group.members.push(c);
    if (c.previous) group.previous++;
    group.capacity += c.capacity;
  }
  return [...byKey.values()].sort(
    (a, b) =>
      b.previous - a.previous || b.capacity - a.capacity || b.members.length - a.members.length || compareStrings(a.key, b.key),
  );
}

/** Current targets first, then the most room, then by name. */
function compareClusters(a: Candidate, b: Candidate): number {
  return Number(b.previous) - Number(a.previous) || b.capacity - a.capacity || compareStrings(a.name, b.name);
}

function groupKey(level: Level, name: string, cluster: Cluster): string | undefined {
  if (level.label !== undefined) return cluster.metadata.labels?.[level.label] || undefined;
  if (level.field === "cluster") return name;
  return cluster.spec?.[level.field as Exclude<Field, "cluster">] || undefined;
}

// Validates the constraints and orders them coarse to fine. As in Karmada's Go types, an empty
// spreadByField or spreadByLabel counts as unset; with both unset the constraint is by cluster
// (Karmada's SetDefaultSpreadConstraints).
function parseConstraints(constraints: SpreadConstraint[]): Level[] {
  const list: unknown = constraints ?? [];
  if (!Array.isArray(list)) throw new Refusal("spreadConstraints: must be a list");
  const levels: Level[] = [];
  const seen = new Map<string, number>();
  list.forEach((constraint: SpreadConstraint, index) => {
    const at = `spreadConstraints[${index}]`;
    if (typeof constraint !== "object" || constraint === null) throw new Refusal(`${at}: must be an object`);
    const label = constraint.spreadByLabel || undefined;
    const field = constraint.spreadByField || (label === undefined ? "cluster" : undefined);
    if (field !== undefined && label !== undefined) throw new Refusal(`${at}: set at most one of spreadByField and spreadByLabel`);
    if (field !== undefined && !FIELDS.includes(field)) {
      throw new Refusal(`${at}.spreadByField: must be one of ${FIELDS.join(", ")}, got ${show(field)}`);
    }
    if (label !== undefined && typeof label !== "string") {
      throw new Refusal(`${at}.spreadByLabel: must be a string, got ${show(label)}`);
    }
    const min = checkCount(`${at}.minGroups`, constraint.minGroups);
    const max = checkCount(`${at}.maxGroups`, constraint.maxGroups);
    if (min !== undefined && max !== undefined && min > max) {
      throw new Refusal(`${at}: minGroups ${min} is greater than maxGroups ${max}`);
    }
    const name = field ?? `label ${JSON.stringify(label)}`;
    const earlier = seen.get(name);
    if (earlier !== undefined) throw new Refusal(`${at}: ${name} is already constrained by spreadConstraints[${earlier}]`);
    seen.set(name, index);
    levels.push({ index, field, label, name, min: min ?? 0, max });
  });

  const rank = (level: Level): number =>
    level.field === "cluster" ? Infinity : level.field !== undefined ? FIELD_ORDER.indexOf(level.field) : FIELD_ORDER.length;
  levels.sort((a, b) => rank(a) - rank(b) || a.index - b.index);

  // No choice of fewer clusters than a coarser level's minGroups can span that many groups.
  const cluster = levels.find((level) => level.field === "cluster");
  if (cluster?.max !== undefined) {
    for (const level of levels) {
      if (level === cluster || level.min <= cluster.max) continue;
      throw new Refusal(
        `spreadConstraints[${cluster.index}]: cluster maxGroups ${cluster.max} is less than ${level.name} minGroups ${level.min} ` +
          `(spreadConstraints[${level.index}]): that many clusters cannot span that many groups`,
      );
    }
  }
  return levels;
}

/** The named candidates by name; a candidate without a name is ignored, a name given twice refused. */
function namedClusters(clusters: Cluster[]): Map<string, Cluster> {
  const byName = new Map<string, Cluster>();
  for (const cluster of clusters ?? []) {
    const name = cluster.metadata?.name;
    if (!name) continue;
    if (byName.has(name)) throw new Refusal(`candidates: name ${name} appears twice`);
    byName.set(name, cluster);
  }
  return byName;
}

function checkCapacity(capacity: Record<string, number> | undefined): Map<string, number> {
  const map = new Map<string, number>();
  for (const [name, room] of Object.entries(capacity ?? {})) {
    map.set(name, checkCount(`capacity.${name}`, room) ?? 0);
  }
  return map;
}

function checkCount(field: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new Refusal(`${field}: must be a non-negative integer, got ${show(value)}`);
  }
  return value;
}

/** `1 region`, `3 zones`, `2 values of label "tier"`. */
function count(n: number, level: Level): string {
  if (level.label !== undefined) return `${n} ${n === 1 ? "value" : "values"} of ${level.name}`;
  return `${n} ${level.name}${n === 1 ? "" : "s"}`;
}

/** ` (a, b, c)`, at most LISTED values then how many more; nothing when there are none. */
function listed(keys: string[]): string {
  if (keys.length === 0) return "";
  const sorted = [...keys].sort(compareStrings);
  const more = sorted.length > LISTED ? `, and ${sorted.length - LISTED} more` : "";
  return ` (${sorted.slice(0, LISTED).join(", ")}${more})`;
}

function show(value: unknown): string {
  return typeof value === "number" ? String(value) : JSON.stringify(value) ?? String(value);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
