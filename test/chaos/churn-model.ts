// What the churn driver wants the fleet to look like, and the next change it makes: pure, so the
// checks can ask "was this object wanted on that cluster at that moment?" from the model alone.
import type { Random } from "./random.ts";

export const NAMESPACE = "chaos";
export const GROUP_LABEL = "chaos-group";
export const WIDGET_GROUP = "chaos.flotilla.dev";
export const WIDGET_API_VERSION = `${WIDGET_GROUP}/v1`;

export type TemplateKind = "Deployment" | "ConfigMap" | "Secret" | "Widget";
const KINDS: readonly TemplateKind[] = ["Deployment", "ConfigMap", "Secret", "Widget"];
/** Names per kind: k0 … k(N-1); a name's group is its index modulo the groups. */
const NAMES_PER_KIND = 4;
export const GROUPS = ["g0", "g1", "g2"] as const;
export type Group = (typeof GROUPS)[number];
/**
 * The group placed by a Cluster label (clusterAffinity.labelSelector) instead of by names: it is
 * wanted on the members whose Cluster carries CLUSTER_LABEL, which an admin sets and removes
 * (`kubectl label cluster`); its policy's `clusters` are every member, for the weights.
 */
export const LABEL_GROUP: Group = "g2";
export const CLUSTER_LABEL = "chaos-tier";
export const CLUSTER_LABEL_VALUE = "gold";

export interface TemplateState {
  kind: TemplateKind;
  name: string;
  /** Bumped by each update: it changes the data, the image tag or the replicas. */
  version: number;
  replicas: number;
}

export interface GroupPolicy {
  /** Where the group's templates go. */
  clusters: string[];
  /** Divided weights of the group's Deployments, one per cluster in `clusters`. */
  weights: number[];
  /** The clusters whose copies get the override label, or null when the group has no OverridePolicy. */
  overrideClusters: string[] | null;
  overrideVersion: number;
}

export interface ChurnModel {
  members: string[];
  templates: Map<string, TemplateState>;
  policies: Record<Group, GroupPolicy>;
  /** The members whose Cluster carries CLUSTER_LABEL, as the admin set it (sorted). */
  labelled: string[];
}

export type ChurnOperation =
  | { op: "create" | "update"; template: TemplateState }
  | { op: "delete"; kind: TemplateKind; name: string }
  | { op: "move" | "reweight" | "override" | "unoverride"; group: Group; policy: GroupPolicy }
  /** An admin sets (label) or removes (unlabel) CLUSTER_LABEL on a member's Cluster. */
  | { op: "label" | "unlabel"; member: string };

export function templateId(kind: TemplateKind, name: string): string {
  return `${kind}/${name}`;
}

export function groupOf(name: string): Group {
  return GROUPS[Number(/\d+$/.exec(name)?.[0] ?? 0) % GROUPS.length] as Group;
}

/** Every group starts on every member (every Cluster labelled), without overrides; no templates yet. */
export function initialModel(members: string[]): ChurnModel {
  const policy = (): GroupPolicy => ({ clusters: [...members], weights: members.map(() => 1), overrideClusters: null, overrideVersion: 0 });
  return { members, templates: new Map(), policies: { g0: policy(), g1: policy(), g2: policy() }, labelled: [...members].sort() };
}

/** Templates change three times as often as policies and Cluster labels together. */
export function nextOperation(rng: Random, m: ChurnModel): ChurnOperation {
  if (rng.chance(0.75)) {
    const kind = rng.pick(KINDS);
    const name = `${kind.toLowerCase()}${rng.int(NAMES_PER_KIND)}`;
    const have = m.templates.get(templateId(kind, name));
    if (have === undefined) return { op: "create", template: { kind, name, version: 1, replicas: rng.between(6, 12) } };
    if (rng.chance(0.3)) return { op: "delete", kind, name };
    return { op: "update", template: { ...have, version: have.version + 1, replicas: kind === "Deployment" && rng.chance(0.5) ? rng.between(6, 12) : have.replicas } };
  }
  // An admin labels or unlabels a member's Cluster: the label group moves with its Clusters' labels.
  if (rng.chance(0.3)) {
    const member = rng.pick(m.members);
    return { op: m.labelled.includes(member) ? "unlabel" : "label", member };
  }
  const group = rng.pick(GROUPS);
  const p = m.policies[group];
  // The label group's policy names no clusters to move between.
  switch (group === LABEL_GROUP ? 1 + rng.int(2) : rng.int(3)) {
    case 0: {
      const clusters = rng.subset(m.members);
      return { op: "move", group, policy: { ...p, clusters, weights: clusters.map(() => rng.between(1, 3)) } };
    }
    case 1:
      return { op: "reweight", group, policy: { ...p, weights: p.clusters.map(() => rng.between(1, 3)) } };
    default:
      return p.overrideClusters !== null && rng.chance(0.4)
        ? { op: "unoverride", group, policy: { ...p, overrideClusters: null } }
        : { op: "override", group, policy: { ...p, overrideClusters: rng.subset(m.members), overrideVersion: p.overrideVersion + 1 } };
  }
}

/** The model after an operation succeeded. */
export function applyOperation(m: ChurnModel, o: ChurnOperation): ChurnModel {
  const templates = new Map(m.templates);
  const policies = { ...m.policies };
  if ("member" in o) {
    const labelled = m.labelled.filter((x) => x !== o.member);
    return { ...m, labelled: o.op === "label" ? [...labelled, o.member].sort() : labelled };
  }
  if ("template" in o) templates.set(templateId(o.template.kind, o.template.name), o.template);
  else if ("policy" in o) policies[o.group] = o.policy;
  else templates.delete(templateId(o.kind, o.name));
  return { ...m, templates, policies };
}

/** The members a group's policy places its templates on: its clusters, or for the label group the labelled ones. */
export function placedOn(m: ChurnModel, group: Group): string[] {
  const { clusters } = m.policies[group];
  return group === LABEL_GROUP ? clusters.filter((c) => m.labelled.includes(c)) : clusters;
}

/** Where each template is wanted: template id → its clusters. */
export function wanted(m: ChurnModel): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [id, t] of m.templates) out.set(id, new Set(placedOn(m, groupOf(t.name))));
  return out;
}

/** The admin's merge patch of a member's Cluster for a label operation (null removes the label). */
export function clusterLabelPatch(o: { op: "label" | "unlabel" }): { metadata: { labels: Record<string, string | null> } } {
  return { metadata: { labels: { [CLUSTER_LABEL]: o.op === "label" ? CLUSTER_LABEL_VALUE : null } } };
}

/** The template as the driver applies it to the control cluster. */
export function templateManifest(t: TemplateState): Record<string, unknown> {
  const metadata = { name: t.name, namespace: NAMESPACE, labels: { [GROUP_LABEL]: groupOf(t.name), app: t.name } };
  switch (t.kind) {
    case "Deployment":
      return {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata,
        spec: {
          replicas: t.replicas,
          selector: { matchLabels: { app: t.name } },
          template: { metadata: { labels: { app: t.name } }, spec: { containers: [{ name: "app", image: `registry.example/app:v${t.version}` }] } },
        },
      };
    case "ConfigMap":
      return { apiVersion: "v1", kind: "ConfigMap", metadata, data: { version: String(t.version), payload: "x".repeat(t.version % 7) } };
    case "Secret":
      return { apiVersion: "v1", kind: "Secret", metadata, type: "Opaque", stringData: { token: `secret-${t.name}-${t.version}` } };
    case "Widget":
      return { apiVersion: WIDGET_API_VERSION, kind: "Widget", metadata, spec: { size: t.version } };
  }
}

/** The group's PropagationPolicies (one Duplicated for the plain kinds, one Divided for Deployments) and its OverridePolicy, or null to delete it. */
export function groupPolicyManifests(group: Group, p: GroupPolicy): { propagation: Record<string, unknown>[]; override: Record<string, unknown> | null } {
  const selector = (apiVersion: string, kind: string) => ({ apiVersion, kind, labelSelector: { matchLabels: { [GROUP_LABEL]: group } } });
  const meta = (name: string) => ({ name, namespace: NAMESPACE });
  const clusterAffinity = group === LABEL_GROUP ? { labelSelector: { matchLabels: { [CLUSTER_LABEL]: CLUSTER_LABEL_VALUE } } } : { clusterNames: p.clusters };
  const plain = {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: meta(`plain-${group}`),
    spec: { resourceSelectors: [selector("v1", "ConfigMap"), selector("v1", "Secret"), selector(WIDGET_API_VERSION, "Widget")], placement: { clusterAffinity } },
  };
  const divided = {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: meta(`deploy-${group}`),
    spec: {
      resourceSelectors: [selector("apps/v1", "Deployment")],
      placement: {
        clusterAffinity,
        replicaScheduling: {
          replicaSchedulingType: "Divided",
          replicaDivisionPreference: "Weighted",
          weightPreference: { staticWeightList: p.clusters.map((c, i) => ({ targetCluster: { clusterNames: [c] }, weight: p.weights[i] ?? 1 })) },
        },
      },
    },
  };
  const override =
    p.overrideClusters === null
      ? null
      : {
          apiVersion: "flotilla.dev/v1alpha1",
          kind: "OverridePolicy",
          metadata: meta(`override-${group}`),
          spec: {
            resourceSelectors: [selector("v1", "ConfigMap"), selector("v1", "Secret"), selector(WIDGET_API_VERSION, "Widget"), selector("apps/v1", "Deployment")],
            overrideRules: [{ targetCluster: { clusterNames: p.overrideClusters }, overriders: { plaintext: [{ path: "/metadata/labels/chaos-override", operator: "add", value: `v${p.overrideVersion}` }] } }],
          },
        };
  return { propagation: [plain, divided], override };
}

/**
 * A template update that changes a Deployment's replicas: to `replicas`, or the next value of 6–12
 * when the template has that already; undefined when the template is gone.
 */
export function replicasUpdate(m: ChurnModel, name: string, replicas: number): ChurnOperation | undefined {
  const have = m.templates.get(templateId("Deployment", name));
  if (have === undefined) return undefined;
  return { op: "update", template: { ...have, version: have.version + 1, replicas: replicas !== have.replicas ? replicas : replicas >= 12 ? 6 : replicas + 1 } };
}
