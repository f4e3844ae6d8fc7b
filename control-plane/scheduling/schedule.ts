// Where a template's replicas go: placement (which clusters) then division (how many each). Pure.
import type { KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import type {
  Cluster,
  ClusterAffinity,
  ClusterAffinityTerm,
  KubeObject,
  Placement,
  PropagationPolicy,
  Taint,
  TargetCluster,
  Toleration,
} from "../../shared/api/types.ts";
import { replicasOf } from "../../shared/interpreter/native/adapter.ts";
import { placedAsSets, templateComponents } from "./binding-spec.ts";
import { stableDivision } from "./stable-division.ts";
import { availableComponentSets, availableReplicas, freeReplicas, componentSetRequest, replicaRequest, type ResourceAmounts, reportsCapacity, showAmounts } from "./capacity.ts";
import { clusterReady, selectClusters } from "./placement.ts";
import { DivisionError, divideReplicas } from "./replica-division.ts";
import { applySpreadConstraints } from "./spread-constraints.ts";

export interface Schedule {
  targets: TargetCluster[];
  /** Replicas no cluster could take (a multi-component workload: 1 when no cluster takes its set). */
  unplaced: number;
  /** Why replicas are unplaced, or why no cluster fits. */
  message?: string;
  /** Why the policy cannot be scheduled at all (the binding then keeps the clusters it has). */
  error?: string;
  /** The placement.clusterAffinities group in use. */
  affinityName?: string;
}

/** Whether a toleration matches a taint (Kubernetes semantics: empty key with Exists matches all). */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect !== undefined && t.effect !== taint.effect) return false;
  if (t.operator === "Exists") return t.key === undefined || t.key === "" || t.key === taint.key;
  return t.key === taint.key && (t.value ?? "") === (taint.value ?? "");
}

/** Whether the cluster carries a taint of this effect that no toleration matches. */
export function untoleratedTaint(c: Cluster, effect: Taint["effect"], tolerations: Toleration[] = []): boolean {
  return (c.spec?.taints ?? []).some((taint) => taint.effect === effect && !tolerations.some((t) => tolerates(t, taint)));
}

/** Whether a cluster may take Divided replicas: Ready and without an untolerated NoExecute taint. */
export function schedulable(c: Cluster, tolerations: Toleration[] = []): boolean {
  return clusterReady(c) && !untoleratedTaint(c, "NoExecute", tolerations);
}

/**
 * The target clusters of a template under its policy. With placement.clusterAffinities the groups
 * are tried in order and the first that fits is used: it places every replica on clusters of which
 * at least one is schedulable, within the spread constraints. When none fits, the group that
 * comes closest is used (fewest unplaced replicas, then the earliest). A recovered earlier group
 * is used again, as the policy orders them. `previous` (the binding's current targets) keeps ties stable.
 * `fresh` (a fresh reschedule, Karmada's Fresh assignment mode): the division and the spread
 * constraints' choice disregard where the replicas are now; what a cluster runs still counts as
 * room it has (Karmada's too), and a cluster that holds the workload still passes a NoSchedule taint.
 */
export function scheduleTemplate(
  template: KubeObject,
  policy: PropagationPolicy,
  clusters: Cluster[],
  previous: TargetCluster[] = [],
  interpreter?: KindInterpreter,
  /** Cluster → the most Divided replicas it takes (a cluster replicas moved away from: unschedulable-moves.ts). */
  caps: ReadonlyMap<string, number> = new Map(),
  fresh = false,
): Schedule {
  const placement = policy.spec.placement ?? {};
  const terms: (ClusterAffinityTerm | undefined)[] =
    placement.clusterAffinities !== undefined && placement.clusterAffinities.length > 0 ? placement.clusterAffinities : [undefined];
  const byName = new Map(clusters.map((c) => [c.metadata.name ?? "", c]));
  const tolerations = placement.clusterTolerations ?? [];
  const demand = demandOf(template, interpreter);
  let best: Schedule | undefined;
  for (const term of terms) {
    // A group's overflowAffinities (Karmada v1.19) widen it tier by tier while it cannot hold the
    // replicas; the smallest widening that holds them is used, so a scale-down contracts it again.
    for (const affinity of term === undefined ? [placement.clusterAffinity] : overflowTiers(term)) {
      const s = scheduleWithin(demand, placement, affinity, clusters, byName, previous, caps, fresh ? [] : previous);
      if (term !== undefined) s.affinityName = term.affinityName;
      const fits = s.error === undefined && s.unplaced === 0 && s.targets.some((t) => schedulable(byName.get(t.name) as Cluster, tolerations));
      if (fits) return s;
      if (best === undefined || closer(s, best)) best = s;
    }
  }
  return best as Schedule;
}

/** A clusterAffinities group and its overflow tiers as successive unions: [primary], [primary, tier 1], ... */
export function overflowTiers(term: ClusterAffinityTerm): (ClusterAffinity | ClusterAffinity[])[] {
  const tiers: ClusterAffinity[] = [term, ...(term.overflowAffinities ?? [])];
  return tiers.length === 1 ? [term] : tiers.map((_, i) => tiers.slice(0, i + 1));
}

/**
 * What a template asks of clusters. Per replica: its replicas and what each requests. As whole
 * sets (two or more components): what one complete set requests (its replicas, if GetReplicas
 * gives any, are only recorded on the binding).
 */
type Demand = { kind: "replicas"; replicas: number | undefined; perReplica: () => ResourceAmounts } | { kind: "sets"; perSet: ResourceAmounts };

// Asked once per schedule: a customization's GetReplicas and GetComponents are Lua calls, and
// either may throw (InterpreterError), which the caller turns into InterpreterFailed.
function demandOf(template: KubeObject, interpreter: KindInterpreter | undefined): Demand {
  const asked = replicasOf(template, interpreter);
  const components = templateComponents(template, interpreter);
  if (placedAsSets(components)) return { kind: "sets", perSet: componentSetRequest(components) };
  // Lazily: only a Divided placement estimates capacity.
  return { kind: "replicas", replicas: asked?.replicas, perReplica: () => replicaRequest(template, asked?.requires) };
}

/** What one replica requests, for a template divided per replica (undefined for one placed as whole sets). */
export function perReplicaRequest(template: KubeObject, interpreter: KindInterpreter | undefined): ResourceAmounts | undefined {
  const demand = demandOf(template, interpreter);
  return demand.kind === "replicas" ? demand.perReplica() : undefined;
}

/**
 * Where a template goes after scheduling: the schedule's targets or, when the policy cannot be
 * scheduled, what it has now, except clusters that are leaving (an unjoin must never wait on it).
 */
export function targetsAfter(schedule: Schedule, existing: TargetCluster[] | undefined, live: Cluster[]): TargetCluster[] {
  if (schedule.error === undefined) return schedule.targets;
  const names = new Set(live.map((c) => c.metadata.name));
  return (existing ?? []).filter((t) => names.has(t.name));
}

/** Whether a is a better fallback than b: no error, then fewer unplaced replicas, then more clusters. */
function closer(a: Schedule, b: Schedule): boolean {
  if ((a.error === undefined) !== (b.error === undefined)) return a.error === undefined;
  if (a.unplaced !== b.unplaced) return a.unplaced < b.unplaced;
  return a.targets.length > b.targets.length;
}

/**
 * The schedule within one cluster affinity. Clusters with an untolerated NoExecute taint are never
 * targets; an untolerated NoSchedule taint keeps a cluster from becoming a new target. Duplicated
 * (the default) places every such cluster and keeps it through a readiness blip; Divided splits
 * the template's replicas over the selected clusters that are schedulable, so a lost cluster's
 * share moves to the others and comes back when it recovers. Spread constraints then bound the
 * groups used.
 */
function scheduleWithin(
  demand: Demand,
  placement: Placement,
  /** The clusters it may use: one affinity, or (overflow tiers) those any of several select. */
  affinity: ClusterAffinity | readonly ClusterAffinity[] | undefined,
  clusters: Cluster[],
  byName: ReadonlyMap<string, Cluster>,
  previous: TargetCluster[],
  caps: ReadonlyMap<string, number>,
  /** What the division and the spread constraints keep stable: previous, or none for a fresh reschedule. */
  sticky: TargetCluster[],
): Schedule {
  const tolerations = placement.clusterTolerations ?? [];
  const held = new Set(previous.map((t) => t.name));
  const selected = Array.isArray(affinity) ? [...new Set(affinity.flatMap((a) => selectClusters(a, clusters)))].sort() : selectClusters(affinity as ClusterAffinity | undefined, clusters);
  // An untolerated NoExecute taint evicts; an untolerated NoSchedule taint admits nothing new.
  const names = selected.filter((n) => {
    const c = byName.get(n) as Cluster;
    return !untoleratedTaint(c, "NoExecute", tolerations) && (held.has(n) || !untoleratedTaint(c, "NoSchedule", tolerations));
  });
  if (demand.kind === "sets") return scheduleSets(demand.perSet, placement, selected.length, names, byName, previous, sticky);
  const replicas = demand.replicas;
  const strategy = placement.replicaScheduling;
  const divided = strategy !== undefined && strategy.replicaSchedulingType === "Divided" && replicas !== undefined;
  const candidates = names.map((n) => byName.get(n) as Cluster).filter((c) => !divided || schedulable(c, tolerations));
  const perReplica = divided ? demand.perReplica() : undefined;
  const capped = (name: string, n: number): number => Math.min(n, caps.get(name) ?? Infinity);
  const available = perReplica ? Object.fromEntries(candidates.map((c) => [c.metadata.name ?? "", capped(c.metadata.name ?? "", availableReplicas(c, perReplica, previous))])) : undefined;
  const spread = applySpreadConstraints({
    candidates,
    constraints: placement.spreadConstraints ?? [],
    previous: sticky.map((t) => t.name),
    ...(available ? { capacity: available } : {}),
  });
  if ("error" in spread) return { targets: [], unplaced: replicas ?? 0, error: spread.error };
  if (spread.clusters.length === 0) {
    return { targets: [], unplaced: replicas ?? 0, message: noFitMessage(selected.length, names.length, candidates.length, divided) };
  }
  if (!divided) {
    return { targets: spread.clusters.map((name) => (replicas === undefined ? { name } : { name, replicas })), unplaced: 0 };
  }
  const chosen = new Set(spread.clusters);
  const chosenClusters = candidates.filter((c) => chosen.has(c.metadata.name ?? ""));
  const free = perReplica
    ? new Map(chosenClusters.flatMap((c): [string, number][] => {
        const n = freeReplicas(c, perReplica);
        return n === undefined ? [] : [[c.metadata.name ?? "", n]];
      }))
    : undefined;
  const stable = stableDivision({ strategy, previous: sticky, chosen: chosenClusters, replicas, caps, ...(free ? { free } : {}) });
  if (stable !== undefined) return stable;
  try {
    const division = divideReplicas({
      replicas,
      clusters: chosenClusters,
      strategy,
      available,
      previous: Object.fromEntries(sticky.map((t) => [t.name, capped(t.name, t.replicas ?? 0)])),
      ...(caps.size > 0 ? { caps: Object.fromEntries(caps) } : {}),
    });
    return {
      targets: division.assignments.filter((a) => a.replicas > 0).map((a) => ({ name: a.name, replicas: a.replicas })),
      unplaced: division.unplaced,
      ...(division.message ? { message: division.message } : {}),
    };
  } catch (err) {
    if (err instanceof DivisionError) return { targets: [], unplaced: replicas, error: err.message };
    throw err;
  }
}

/**
 * A multi-component workload's schedule: it goes to clusters as whole sets, never divided per
 * replica. A cluster is a candidate only when it can hold one complete set (its free resources ≥
 * Σ components' replicas × request; the one it runs counts), unless no candidate reports capacity
 * at all (then none is judged, as dynamic division does). The sets each can hold are the capacity
 * the spread constraints rank by. Duplicated: every cluster left gets the whole workload.
 * Divided: one set cannot be split, so exactly one cluster gets it, chosen by the policy's
 * division preference with the set as its single unit (static weights: the heaviest; dynamic
 * weights and Aggregated: the most sets). Why one cluster, beyond Karmada: README.md here.
 */
function scheduleSets(perSet: ResourceAmounts, placement: Placement, selected: number, names: string[], byName: ReadonlyMap<string, Cluster>, previous: TargetCluster[], sticky: TargetCluster[]): Schedule {
  const tolerations = placement.clusterTolerations ?? [];
  const held = new Set(previous.map((t) => t.name));
  const strategy = placement.replicaScheduling;
  const divided = strategy?.replicaSchedulingType === "Divided";
  // Selected and tolerated (names), and for Divided also Ready.
  const placeable = names.map((n) => byName.get(n) as Cluster).filter((c) => !divided || schedulable(c, tolerations));
  const judged = placeable.some(reportsCapacity);
  const sets = new Map(placeable.map((c) => [c.metadata.name ?? "", judged ? (availableComponentSets(c, perSet, held.has(c.metadata.name ?? "")) ?? 0) : 0]));
  const candidates = judged ? placeable.filter((c) => (sets.get(c.metadata.name ?? "") ?? 0) >= 1) : placeable;
  if (candidates.length === 0) {
    const why = placeable.length === 0 ? noFitMessage(selected, names.length, 0, divided) : `${plural(placeable.length, "cluster")} selected, none can hold one complete set of the components (${showAmounts(perSet)})`;
    return { targets: [], unplaced: 1, message: why };
  }
  const capacity = judged ? Object.fromEntries(candidates.map((c) => [c.metadata.name ?? "", sets.get(c.metadata.name ?? "") ?? 0])) : undefined;
  const kept = sticky.map((t) => t.name);
  const spread = applySpreadConstraints({ candidates, constraints: placement.spreadConstraints ?? [], previous: kept, ...(capacity ? { capacity } : {}) });
  if ("error" in spread) return { targets: [], unplaced: 1, error: spread.error };
  if (spread.clusters.length === 0) return { targets: [], unplaced: 1, message: noFitMessage(selected, names.length, candidates.length, divided) };
  if (!divided) return { targets: spread.clusters.map((name) => ({ name })), unplaced: 0 };
  const chosen = new Set(spread.clusters);
  try {
    const division = divideReplicas({
      replicas: 1,
      clusters: candidates.filter((c) => chosen.has(c.metadata.name ?? "")),
      strategy,
      ...(capacity ? { available: capacity } : {}),
      previous: Object.fromEntries(kept.map((name) => [name, 1])),
    });
    const one = division.assignments.find((a) => a.replicas > 0);
    // Only static weights can leave it out (no chosen cluster weighs above 0, or all at maxReplicas 0).
    const reason = division.message?.slice(division.message.indexOf(": ") + 2) ?? "no cluster takes it";
    if (one === undefined) return { targets: [], unplaced: 1, message: `the complete set of the components is unplaced: ${reason}` };
    return { targets: [{ name: one.name }], unplaced: 0 };
  } catch (err) {
    if (err instanceof DivisionError) return { targets: [], unplaced: 1, error: err.message };
    throw err;
  }
}

function noFitMessage(selected: number, untainted: number, candidates: number, divided: boolean): string {
  if (selected === 0) return "no cluster matches the placement's cluster affinity";
  if (untainted === 0) return `${plural(selected, "cluster")} selected, all with a taint the policy does not tolerate`;
  if (candidates === 0 && divided) return `${plural(untainted, "cluster")} selected, none Ready`;
  return "no cluster is left after the spread constraints";
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
