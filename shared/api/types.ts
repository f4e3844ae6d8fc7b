// TypeScript shapes of Flotilla's CRDs (group flotilla.dev, version v1alpha1). Field names follow
// Karmada's where the feature overlaps, so a Karmada policy ports by changing its apiVersion.
// The CRD schemas in control-plane/crds/ are the source of truth for validation; keep in step.

export const GROUP = "flotilla.dev";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;

/** Labels and annotations Flotilla sets or reads. */
export const LABELS = {
  /**
   * On Flotilla's rollout bookkeeping in the control cluster (a template's ControllerRevisions, a
   * Secret's revision values): the template key's digest. Never a template: no policy selects it.
   */
  rolloutOf: "flotilla.dev/rollout-of",
  /** On a member object: "false" means Flotilla never touches it (ManagedLabelFalse). */
  managed: "flotilla.dev/managed",
  /** On a member object Flotilla applied: the Work key that owns it (sanitised into a label value hash). */
  work: "flotilla.dev/work",
  /** On a ResourceBinding: the policy that placed it. */
  policyName: "flotilla.dev/policy-name",
  policyNamespace: "flotilla.dev/policy-namespace",
  /**
   * On a ResourceBinding the control plane deletes on purpose: why (e.g. DependencyReleased).
   * A binding deleted without it (by hand, or lost) while its template lives removes nothing.
   */
  releasedBecause: "flotilla.dev/released-because",
  /**
   * On the ResourceBinding of a workload whose dependencies are followed (under propagateDeps, and
   * after it while it still refers to them): the template keys it refers to
   * (shared/workload-requires.ts). The hub keeps a dependency in a cluster such a workload is
   * placed on or runs on, even before the dependency's own binding names the workload.
   */
  requires: "flotilla.dev/requires",
  /**
   * On a Cluster: a person's answer to the deletions the brake holds for it (flotillactl
   * deletions approve|reject writes the time). Each new value applies to what is held then.
   */
  deletionsApproved: "flotilla.dev/deletions-approved",
  deletionsRejected: "flotilla.dev/deletions-rejected",
  /**
   * On a Cluster: "true" when `flotillactl unjoin --force` deletes it: the finalizer is released at
   * once and the member keeps what Flotilla applied (no ClusterUnjoined removal is sent).
   */
  unjoinForce: "flotilla.dev/unjoin-force",
  /**
   * On a ResourceBinding: the spec.rescheduleTriggeredAt its last fresh reschedule served, written
   * by the binding controller in the same write as that schedule's clusters (so a restart or a new
   * leader never serves it twice, and never loses it).
   */
  rescheduleServed: "flotilla.dev/reschedule-served",
  /**
   * On a ResourceBinding whose policy says activationPreference: Lazy: a digest of the template as
   * the binding last followed the policy. While the template still has it, a policy change waits.
   */
  templateStamp: "flotilla.dev/template-stamp",
  /**
   * On a ResourceBinding written with no earlier one to build on (a new template, or one whose
   * binding was deleted by hand or lost in a restore) while its placement could not be decided
   * (its policy held, or a FederatedResourceQuota exceeded): why (the hold's reason, or
   * QuotaExceeded). Its clusters then say nothing of where the template runs, so no member is told
   * to remove anything on their account; it goes with the first placement actually decided.
   */
  placementUnknown: "flotilla.dev/placement-unknown",
} as const;

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Any Kubernetes object, as JSON. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

// ---- selectors -------------------------------------------------------------------------------

export type LabelSelectorOperator = "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt";

export interface LabelSelectorRequirement {
  key: string;
  operator: LabelSelectorOperator;
  values?: string[];
}

/** Kubernetes label selector; matchExpressions also take Gt and Lt on integer label values. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** Karmada's field selector: keys provider, region, zone; operators In, NotIn. */
export interface FieldSelector {
  matchExpressions?: { key: "provider" | "region" | "zone"; operator: "In" | "NotIn"; values: string[] }[];
}

// ---- Cluster -----------------------------------------------------------------------------------

export type TaintEffect = "NoSchedule" | "PreferNoSchedule" | "NoExecute";

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect;
  timeAdded?: string;
}

/** Tolerates cluster taints (Kubernetes toleration semantics). */
export interface Toleration {
  key?: string;
  operator?: "Exists" | "Equal";
  value?: string;
  effect?: TaintEffect;
  tolerationSeconds?: number;
}

export interface ClusterSpec {
  /** An admin accepted the cluster (OCM's name); with --require-acceptance, needed before it receives anything. */
  hubAcceptsClient?: boolean;
  provider?: string;
  region?: string;
  zone?: string;
  taints?: Taint[];
}

export interface ClusterStatus {
  kubernetesVersion?: string;
  agentVersion?: string;
  apiEnablements?: { groupVersion: string }[];
  conditions?: Condition[];
  nodeSummary?: { totalNum: number; readyNum: number };
  resourceSummary?: { allocatable?: Record<string, string>; allocated?: Record<string, string> };
  lastHeartbeatTime?: string;
}

export interface Cluster extends KubeObject {
  spec: ClusterSpec;
  status?: ClusterStatus;
}

// ---- PropagationPolicy / ClusterPropagationPolicy ------------------------------------------------

export interface ResourceSelector {
  apiVersion: string;
  kind: string;
  /** Only for ClusterPropagationPolicy (a namespaced policy selects in its own namespace). */
  namespace?: string;
  name?: string;
  labelSelector?: LabelSelector;
}

export interface ClusterAffinity {
  clusterNames?: string[];
  exclude?: string[];
  labelSelector?: LabelSelector;
  fieldSelector?: FieldSelector;
}

/** One of Karmada's ordered cluster groups: the scheduler uses the first that can take the workload. */
export interface ClusterAffinityTerm extends ClusterAffinity {
  affinityName: string;
  /** Karmada v1.19: more groups added in order when this one cannot hold the replicas (dynamic division only). */
  overflowAffinities?: OverflowClusterAffinity[];
}

/** One overflow tier of a clusterAffinities group (Karmada's OverflowClusterAffinity). */
export interface OverflowClusterAffinity extends ClusterAffinity {
  affinityName: string;
}

/** Karmada v1.19's inter-workload affinity: a template label's value names the group (per namespace). */
export interface WorkloadAffinity {
  affinity?: { groupByLabelKey: string };
  antiAffinity?: { groupByLabelKey: string };
}

/** Karmada's SpreadConstraint: bounds on how many groups (clusters, regions, ...) are used. */
export interface SpreadConstraint {
  spreadByField?: "cluster" | "region" | "zone" | "provider";
  spreadByLabel?: string;
  minGroups?: number;
  maxGroups?: number;
}

export interface Placement {
  clusterAffinity?: ClusterAffinity;
  /** Tried in order; mutually exclusive with clusterAffinity. */
  clusterAffinities?: ClusterAffinityTerm[];
  spreadConstraints?: SpreadConstraint[];
  replicaScheduling?: ReplicaSchedulingStrategy;
  clusterTolerations?: Toleration[];
  workloadAffinity?: WorkloadAffinity;
}

export type ConflictResolution = "Abort" | "Overwrite";

/** Karmada's suspension: stop dispatching changes, to every cluster or to some. */
export interface Suspension {
  dispatching?: boolean;
  dispatchingOnClusters?: { clusterNames?: string[] };
}

export interface PropagationSpec {
  resourceSelectors: ResourceSelector[];
  placement?: Placement;
  /** Higher wins among policies of the same scope and selector kind. */
  priority?: number;
  /** Karmada's: Always takes a resource another policy claims when this one outranks it; Never (default) leaves it. */
  preemption?: "Always" | "Never";
  conflictResolution?: ConflictResolution;
  /** How a workload moves away from a cluster where it fails, or that fails (Karmada's FailoverBehavior). */
  failover?: FailoverBehavior;
  suspension?: Suspension;
  /** The ConfigMaps, Secrets, ServiceAccounts and PVCs a workload refers to follow it. */
  propagateDeps?: boolean;
  /** Member copies stay, no longer managed, when the template is deleted. */
  preserveResourcesOnDeletion?: boolean;
  /** Progressive rollout (issue 23): a template change reaches the clusters in gated waves. */
  rollout?: RolloutStrategy;
  /** Deprecated in Karmada in favor of propagateDeps; true acts as propagateDeps: true. */
  association?: boolean;
  /** OverridePolicies (ClusterOverridePolicies for a ClusterPropagationPolicy) that must exist before the policy takes effect. */
  dependentOverrides?: string[];
  /** The scheduler that places what the policy selects; Flotilla serves DEFAULT_SCHEDULER_NAME only. */
  schedulerName?: string;
  /** Lazy: a policy change reaches a template only at the template's next change. */
  activationPreference?: "Lazy";
  /** Where the workloads' priority in the scheduling queue comes from. */
  schedulePriority?: { priorityClassSource: "KubePriorityClass"; priorityClassName: string };
}

/** Karmada's default schedulerName, the only one Flotilla serves. */
export const DEFAULT_SCHEDULER_NAME = "default-scheduler";

// ---- failover (issue 26, Karmada's FailoverBehavior) ---------------------------------------------

/**
 * What becomes of the copy a workload leaves behind: Directly removes it at once, Gracefully once
 * the replacement is Healthy or a grace period passed, Never keeps it until a person acts.
 */
export type PurgeMode = "Directly" | "Gracefully" | "Never";

/**
 * A purge mode as a policy may spell it: also Karmada v1.18's deprecated names, Immediately
 * (Directly) and Graciously (Gracefully), which a ported policy may keep. The control plane reads
 * them as their new names (scheduling/purge-mode.ts) and writes only those into a binding.
 */
export type PolicyPurgeMode = PurgeMode | "Immediately" | "Graciously";

export interface FailoverBehavior {
  /** A workload Unhealthy in a cluster for tolerationSeconds moves to other clusters. */
  application?: ApplicationFailoverBehavior;
  /** What a cluster that is not Ready (or NoExecute-tainted) does with the copies it loses. */
  cluster?: ClusterFailoverBehavior;
}

export interface ApplicationFailoverBehavior {
  decisionConditions: { tolerationSeconds?: number };
  purgeMode?: PolicyPurgeMode;
  /** Gracefully only: the longest the old copy stays while the replacement is not Healthy (default 600). */
  gracePeriodSeconds?: number;
  statePreservation?: StatePreservation;
}

export interface ClusterFailoverBehavior {
  purgeMode?: PolicyPurgeMode;
  statePreservation?: StatePreservation;
}

/** Values read from the old cluster's status of the workload, given to the new copy as labels. */
export interface StatePreservation {
  rules: StatePreservationRule[];
}

export interface StatePreservationRule {
  aliasLabelName: string;
  /** A Kubernetes JSONPath template over the workload's .status ("{.availableReplicas}"). */
  jsonPath: string;
}

// ---- progressive rollout (issue 23) ----------------------------------------------------------------

/** A count, or a percentage ("25%") of what it counts from. */
export type IntOrPercent = number | string;

/** One wave of a rollout, like OCM's decision groups. */
export interface RolloutGroup {
  name: string;
  /** The clusters it names (a cluster in several groups belongs to the first). */
  clusterNames?: string[];
  /** Or the clusters whose labels match. */
  clusterSelector?: LabelSelector;
  /** How many of its clusters update at once (default: all of them). */
  maxConcurrency?: IntOrPercent;
  /** None (default); BeforeGroup: it starts only once approved; AfterGroup: the next starts only once this one is approved. */
  approval?: "None" | "BeforeGroup" | "AfterGroup";
}

export interface RolloutStrategy {
  /** Ordered waves; clusters no group names form a last group. */
  groups?: RolloutGroup[];
  /** Instead of groups: waves of this many clusters (or this percentage of them), by name. */
  clustersPerGroup?: IntOrPercent;
  /** How long a cluster must stay healthy at the new revision to count as a success (a duration, default 0s). */
  minSuccessTime?: string;
  /** How long a cluster may take to become healthy at the new revision before it counts as failed (default 10m). */
  progressDeadline?: string;
  /** Failed clusters tolerated before onFailure acts (count or % of the clusters; default 0). */
  maxFailures?: IntOrPercent;
  /** Clusters that may be unhealthy at once while the rollout starts more (count or %; default: no limit). */
  maxUnavailable?: IntOrPercent;
  /** Pause (default): stop starting clusters; Rollback: take every reached cluster back to the last revision that succeeded everywhere. */
  onFailure?: "Pause" | "Rollback";
}

/** Where one cluster is in a rollout. */
export type ClusterRolloutPhase = "Waiting" | "Updating" | "Soaking" | "Succeeded" | "Failed";

/** One cluster's place in a rollout (persisted: a restarted control plane resumes from it). */
export interface ClusterRollout {
  name: string;
  /** The revision the cluster is told to run. */
  revision: string;
  phase: ClusterRolloutPhase;
  /** When the phase began (RFC 3339). */
  since: string;
  /** When it was told the revision it is rolling to (RFC 3339): the progress deadline counts from here. */
  updatedAt?: string;
  /** Why it failed. */
  message?: string;
}

export type RolloutPhase = "Progressing" | "WaitingForApproval" | "Paused" | "Succeeded" | "RollingBack" | "RolledBack" | "Aborted";

/** A rollout's state (persisted). */
export interface RolloutState {
  /** The template's revision this rollout is for (during and after a rollback: the one that failed). */
  revision: string;
  /** The last revision that succeeded on every cluster: where a rollback goes. */
  stableRevision: string;
  phase: RolloutPhase;
  /** Failures a resume accepted: only failures beyond them count against maxFailures. */
  acceptedFailures?: number;
  message?: string;
  /** Approvals given: "BeforeGroup/<group>" or "AfterGroup/<group>". */
  approvals?: string[];
  /** The approval the rollout waits for (with phase WaitingForApproval). */
  waitingFor?: string;
  /** A user's pause (flotillactl rollout pause). */
  paused?: boolean;
  clusters: ClusterRollout[];
}

/** An apps/v1 ControllerRevision: one rollout revision of a template (its cleaned copy in data). */
export interface ControllerRevision extends KubeObject {
  data?: KubeObject;
  revision: number;
}

export interface PropagationPolicy extends KubeObject {
  kind: "PropagationPolicy" | "ClusterPropagationPolicy";
  spec: PropagationSpec;
}

// ---- ResourceBinding / ClusterResourceBinding ------------------------------------------------

export interface ObjectReference {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
}

export interface TargetCluster {
  name: string;
  replicas?: number;
}

export interface ResourceBindingSpec {
  resource: ObjectReference;
  replicas?: number;
  /**
   * A multi-template workload's components, as its interpreter's GetComponents gives them
   * (Karmada's spec.components). Two or more: the workload goes to clusters as whole sets.
   */
  components?: BindingComponent[];
  clusters: TargetCluster[];
  placement?: Placement;
  conflictResolution?: ConflictResolution;
  /** The policy's spec.failover (Karmada's binding carries it too). */
  failover?: FailoverBehavior;
  suspension?: Suspension;
  propagateDeps?: boolean;
  preserveResourcesOnDeletion?: boolean;
  /** For a dependency: the bindings that need it and their clusters. */
  requiredBy?: BindingSnapshot[];
  /** Clusters that keep their copy while it is replaced elsewhere (graceful eviction). */
  gracefulEvictionTasks?: GracefulEvictionTask[];
  /**
   * Karmada's field: when a fresh reschedule was asked for (a WorkloadRebalancer's
   * creationTimestamp). Written by the rebalancer's field manager, never by the binding controller.
   */
  rescheduleTriggeredAt?: string;
  /**
   * Replicas moved away from a cluster where their pods stayed Unschedulable (issue 22, Karmada's
   * descheduler): while one is recorded the cluster takes no more than it kept. Written by the
   * control plane.
   */
  replicaMoves?: ReplicaMove[];
  /** The policy's spec.rollout (issue 23): a template change reaches the clusters in waves. */
  rollout?: RolloutStrategy;
  /** Karmada's: the value of the PriorityClass the policy's schedulePriority names; higher is scheduled first. */
  schedulePriority?: { priority: number };
}

/** Replicas moved out of a cluster whose pods for them stayed Unschedulable past --unschedulable-threshold. */
export interface ReplicaMove {
  fromCluster: string;
  /** The replicas moved out: its pods that were Unschedulable. */
  replicas: number;
  /** What the cluster had before the move: kept until the replicas run Available elsewhere (add first). */
  had: number;
  /** The most the cluster takes until the move expires (had − replicas). */
  keep: number;
  /** The reason (Unschedulable). */
  reason: string;
  /** When the move was decided; it lasts at least one --unschedulable-threshold. */
  creationTimestamp: string;
  /** Set once the replicas ran Available elsewhere and the cluster was brought down to `keep`. */
  released?: boolean;
  /**
   * How many more replicas the cluster's resource summary said it held when the move was decided:
   * past its window the move lasts until the summary says more (that figure proved wrong).
   */
  freeAtMove?: number;
}

/** One component of a multi-template workload (Karmada's ComponentRequirements). */
export interface BindingComponent {
  name: string;
  /** Its replicas in one complete set. */
  replicas: number;
  /** What each of its replicas needs. */
  replicaRequirements?: {
    nodeClaim?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[]; hardNodeAffinity?: unknown };
    /** Resource name → canonical quantity ("2", "4Gi"). */
    resourceRequest?: Record<string, string>;
    namespace?: string;
    priorityClassName?: string;
  };
}

/** A cluster a workload leaves, and what becomes of the copy there meanwhile (Karmada's field). */
export interface GracefulEvictionTask {
  fromCluster: string;
  /** The replicas it keeps meanwhile. */
  replicas?: number;
  reason: string;
  /** When the eviction began (RFC 3339). */
  creationTimestamp: string;
  /** The policy's purge mode when the eviction began (absent: Gracefully). */
  purgeMode?: PurgeMode;
  /** A human-readable word on the eviction (why it began; a state rule that read nothing). */
  message?: string;
  /** The longest the copy stays while the replacement is not Healthy (application failover, Gracefully). */
  gracePeriodSeconds?: number;
  /** Never: the copy stays until a person removes the task. */
  suppressDeletion?: boolean;
  /** Labels read from the cluster's status of the workload (statePreservation), for the new copy. */
  preservedLabelState?: Record<string, string>;
  /** Where the workload ran before it moved: those clusters get no preserved labels. */
  clustersBeforeFailover?: string[];
}

/** A binding that needs a dependency, and where it goes. */
export interface BindingSnapshot {
  name: string;
  clusters?: string[];
  /**
   * The template that binding binds (beyond Karmada): found by it even while that binding is
   * missing, and its kind stays watched while a dependency names it (detector/unbound-parent.ts).
   */
  resource?: { apiVersion: string; kind: string; namespace?: string; name: string };
}

/** Per-cluster status words (KubeFed's), empty when the cluster is as desired. */
export type PropagationStatusWord =
  | "AlreadyExists"
  | "ApplyOverridesFailed"
  | "ClusterNotReady"
  | "CreationFailed"
  | "UpdateFailed"
  | "DeletionFailed"
  | "RetrievalFailed"
  | "ManagedLabelFalse"
  | "WaitingForRemoval"
  /** Applied, but a ResourceInterpreterCustomization's script that runs in the agent (Retain, InterpretHealth, InterpretStatus) failed. */
  | "InterpreterFailed"
  /** The blast-radius brake holds its removal until a person approves (DESIGN §11). */
  | "DeletionHeld";

export type HealthWord = "Healthy" | "Unhealthy" | "Progressing" | "Unknown";

export interface AggregatedStatusItem {
  clusterName: string;
  applied?: boolean;
  health?: HealthWord;
  /** A status word when the cluster is not as desired. */
  reason?: PropagationStatusWord | "";
  message?: string;
  /** The member object's .status, for summing. */
  status?: Record<string, unknown>;
  /** Content hash of the Work this entry describes. */
  observedHash?: string;
  /** For a Service: its ready endpoints in the member (EndpointSlices); absent when the agent did not report them. */
  readyEndpoints?: number;
  /** For a workload with pods: how many of its pods the member's scheduler leaves Unschedulable; absent when none. */
  unschedulableReplicas?: number;
  /** When the last of those became Unschedulable (RFC 3339): every one of them has been so at least since then. */
  unschedulableSince?: string;
}

/**
 * Issue 25: counts and sums over every cluster of a binding, so its status has a bounded size
 * whatever the fleet's (aggregatedStatus keeps only the clusters that are not as desired once the
 * binding has more targets than --binding-status-entries). Written by the leader.
 */
export interface AggregatedSummary {
  /** The binding's target clusters. */
  clusters: number;
  /** Target clusters whose agent reported (the rest: waiting for the agent). */
  reported: number;
  /** Target clusters whose member applied the object. */
  applied: number;
  /** Target clusters as desired: applied, Healthy, no status word, the current Work's hash. */
  asDesired: number;
  /** Target clusters per health word (reported ones). */
  health?: Partial<Record<HealthWord, number>>;
  /** Clusters per status word (reason): target clusters and those still to confirm a removal. */
  reasons?: Record<string, number>;
  /** Clusters that are no longer targets and have not confirmed removing the object yet (each keeps its entry). */
  removing?: number;
  /** aggregatedStatus entries of not-as-desired target clusters left out (over --binding-status-entries). */
  omittedEntries: number;
  /** Sums of the member objects' .status.replicas, readyReplicas, availableReplicas, updatedReplicas, where present. */
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  updatedReplicas?: number;
}

export interface ResourceBindingStatus {
  conditions?: Condition[];
  aggregatedStatus?: AggregatedStatusItem[];
  /** Issue 25: counts and sums over every cluster (aggregatedStatus may list only some of them). */
  aggregatedSummary?: AggregatedSummary;
  schedulerObservedGeneration?: number;
  /** The placement.clusterAffinities group in use. */
  schedulerObservedAffinityName?: string;
  /**
   * The progressive rollout's state (issue 23), under a policy with spec.rollout: the revision
   * each cluster is told to run. Written by the leader's rollout controller and by the Admin API's
   * rollout commands, each replacing it whole under the binding's resourceVersion.
   */
  rollout?: RolloutState;
}

export interface ResourceBinding extends KubeObject {
  kind: "ResourceBinding" | "ClusterResourceBinding";
  spec: ResourceBindingSpec;
  status?: ResourceBindingStatus;
}

// ---- replica scheduling (DESIGN §3) -------------------------------------------------------------

/** Karmada's ReplicaSchedulingStrategy; an absent strategy means Duplicated. */
export interface ReplicaSchedulingStrategy {
  replicaSchedulingType: "Duplicated" | "Divided";
  /** Only for Divided; unset means Weighted with equal weights (Karmada's default). */
  replicaDivisionPreference?: "Aggregated" | "Weighted";
  /** Only for Weighted; dynamicWeight, when set, wins over staticWeightList (as in Karmada). */
  weightPreference?: { staticWeightList?: StaticClusterWeight[]; dynamicWeight?: "AvailableReplicas" };
  /**
   * Flotilla's addition, KubeFed ReplicaSchedulingPreference's `rebalance`: under static weights,
   * replicas whose pods stay Unschedulable move to the other clusters (as under dynamicWeight and
   * Aggregated, always).
   */
  rebalance?: boolean;
}

/** One weight entry; a cluster takes the first entry whose targetCluster matches it (`{}` matches all). */
export interface StaticClusterWeight {
  targetCluster: ClusterAffinity;
  weight: number;
  /** Flotilla's addition, with KubeFed ReplicaSchedulingPreference semantics. */
  minReplicas?: number;
  maxReplicas?: number;
}

// ---- OverridePolicy / ClusterOverridePolicy (DESIGN §4) -------------------------------------------

/** Operators every overrider takes; command and args overriders take only add and remove. */
export type OverriderOperator = "add" | "remove" | "replace";

/** One JSON-patch operation on the rendered object; `path` starts with "/", operator defaults to replace. */
export interface PlaintextOverrider {
  path: string;
  operator?: OverriderOperator;
  /** Ignored by remove. */
  value?: unknown;
}

/** Which part of an image `[registry/]repository[:tag|@digest]` an ImageOverrider changes. */
export type ImageComponent = "Registry" | "Repository" | "Tag";

export interface ImageOverrider {
  /** Only the image at this path; unset means every container and initContainer image of a workload. */
  predicate?: { path: string };
  component: ImageComponent;
  operator: OverriderOperator;
  /** add appends it to the component, replace sets it; ignored by remove. */
  value?: string;
}

/** add sets the keys, remove deletes them, replace changes only keys already there. */
export interface LabelAnnotationOverrider {
  operator: OverriderOperator;
  value?: Record<string, string>;
}

/** add appends to the named container's command (or args); remove drops every item equal to one given. */
export interface CommandArgsOverrider {
  containerName: string;
  operator: "add" | "remove";
  value?: string[];
}

/** One JSON-patch operation inside a FieldOverrider's document; subPath is a JSON pointer in it ("" is the whole). */
export interface FieldPatchOperation {
  subPath: string;
  operator: OverriderOperator;
  /** Needed by add and replace; remove takes none. */
  value?: unknown;
}

/** Karmada's names for the two lists of a FieldOverrider. */
export type JSONPatchOperation = FieldPatchOperation;
export type YAMLPatchOperation = FieldPatchOperation;

/**
 * Edits a string field holding a JSON or YAML document (e.g. fieldPath /data/config.yaml): the
 * document is parsed, the operations of json or yaml (exactly one of them) run on it, and it is
 * written back.
 */
export interface FieldOverrider {
  fieldPath: string;
  json?: JSONPatchOperation[];
  yaml?: YAMLPatchOperation[];
}

/** Karmada's Overriders; within one rule they run image, command, args, labels, annotations, field, plaintext. */
export interface Overriders {
  plaintext?: PlaintextOverrider[];
  imageOverrider?: ImageOverrider[];
  labelsOverrider?: LabelAnnotationOverrider[];
  annotationsOverrider?: LabelAnnotationOverrider[];
  commandOverrider?: CommandArgsOverrider[];
  argsOverrider?: CommandArgsOverrider[];
  fieldOverrider?: FieldOverrider[];
}

/** Overriders for the clusters targetCluster matches; no targetCluster means every cluster. */
export interface RuleWithCluster {
  targetCluster?: ClusterAffinity;
  overriders: Overriders;
}

export interface OverrideSpec {
  /** No selectors: every template in the policy's scope. */
  resourceSelectors?: ResourceSelector[];
  /** Absent or empty: the deprecated targetCluster + overriders below, if any, else no change. */
  overrideRules?: RuleWithCluster[];
  /** Deprecated (Karmada v1.0): one rule's targetCluster, used only when overrideRules is absent or empty. */
  targetCluster?: ClusterAffinity;
  /** Deprecated (Karmada v1.0): one rule's overriders, used only when overrideRules is absent or empty. */
  overriders?: Overriders;
}

export interface OverridePolicy extends KubeObject {
  kind: "OverridePolicy" | "ClusterOverridePolicy";
  spec: OverrideSpec;
}
