// One sentence for every condition and status reason Flotilla writes: binding conditions,
// per-cluster status words, cluster conditions, rollout phases, DNS record conditions,
// FederatedHPA conditions and events, deletion reasons. reasons.test.ts discovers the reasons
// from the sources (reason-discovery.ts) and fails on one missing here. Pure.

/** Reason → what it means for the user, as one plain sentence. */
export const REASON_SENTENCES: Readonly<Record<string, string>> = {
  // Binding conditions (status/binding-conditions.ts).
  Scheduled: "The scheduler placed the template on every cluster its policy asks for.",
  NoPolicyClaims: "No PropagationPolicy or ClusterPropagationPolicy selects the template now; it keeps its last placement.",
  NoClusterFit: "No cluster passes the policy's placement rules (affinity, taints, readiness, capacity, spread), so nothing is placed.",
  ReplicasUnplaced: "Some replicas found no cluster with room under the policy's placement; the rest are placed.",
  ComputePlacementFailed: "The policy cannot be scheduled (for example an impossible spread constraint); the binding keeps the clusters it has.",
  InterpreterFailed: "A ResourceInterpreterCustomization's script failed for this kind; what it would decide is left as it was.",
  QuotaExceeded: "The new schedule would take the namespace past a FederatedResourceQuota; the binding keeps its last schedule and nothing running is removed.",
  FullyApplied: "Every target cluster's agent applied the current Work.",
  NotFullyApplied: "At least one target cluster has not applied the current Work yet, or failed to.",
  Propagated: "The template reached every target cluster and each reports it as desired.",
  CheckClusters: "At least one cluster reports a problem with the template; see the per-cluster status.",
  DeletionBudgetExceeded: "The blast-radius brake holds removals from a cluster until an admin approves them.",
  Unschedulable: "Pods of this workload stayed Unschedulable in a member, so their replicas moved to other clusters (ReplicasMoved).",
  SchedulerNameNotServed: "The policy names a schedulerName Flotilla does not serve (only default-scheduler), so nothing schedules the template; it keeps what it has.",
  DependentOverridesMissing: "The policy waits for the OverridePolicies its dependentOverrides names; the template keeps what it has until they exist.",
  PriorityClassNotFound: "The PriorityClass the policy's schedulePriority names does not exist in the control cluster; the template keeps what it has until it does.",
  FieldsNotActedOn: "The policy sets a field Flotilla stores but does not act on yet; the template is scheduled as if it were unset (PolicyFieldsSupported).",
  Invalid: "The apiserver refused the object: a rule of its schema or of a Flotilla admission policy does not hold (the message says which).",
  // Per-cluster status words (shared/api/types.ts PropagationStatusWord, agent reports).
  AlreadyExists: "The object already exists in the member and Flotilla does not own it; with conflictResolution Abort it is left alone.",
  ApplyOverridesFailed: "An OverridePolicy could not be applied to the template for this cluster, so no Work was rendered.",
  ClusterNotReady: "The cluster is not Ready (its agent's heartbeats stopped); what it last reported may be stale.",
  CreationFailed: "The object could not be created in the member: its apiserver refused it, or does not serve its kind (a CRD missing there).",
  UpdateFailed: "The member's apiserver refused to update the object.",
  DeletionFailed: "The agent could not delete the object from the member.",
  RetrievalFailed: "The agent could not read the object back from the member.",
  ManagedLabelFalse: "The member's object is labelled as not managed by Flotilla, so the agent leaves it alone.",
  WaitingForRemoval: "The cluster is no target any more; its agent has not confirmed the object's removal yet.",
  DeletionHeld: "Removing the object from this cluster is held by the blast-radius brake until an admin approves.",
  // Cluster conditions (clusters/).
  ClusterReady: "The cluster's agent sends heartbeats in time.",
  ClusterNotReachable: "No heartbeat from the cluster's agent within the failure threshold.",
  ClusterRecovering: "The agent's heartbeats are back; the cluster turns Ready once they keep arriving.",
  AwaitingAgent: "The cluster is registered but its agent has not sent a heartbeat yet.",
  MissingFeatures: "The cluster's agent lacks a feature the control plane needs; upgrade the agent.",
  ClaimsLeftOut: "The hub left out of the agent's heartbeat what was not sane (the message lists it).",
  HubAccepted: "An admin accepted the cluster: it may receive templates.",
  AwaitingAcceptance: "The cluster waits for an admin's acceptance (flotillactl accept) before it receives anything.",
  // Deletion reasons (hub/deletion-intent.ts) and the agent's default.
  TemplateDeleted: "The template was deleted, so its objects are removed from members.",
  DependencyReleased: "No workload needs this dependency in the cluster any more, so it is removed there.",
  PlacementChanged: "The cluster is no longer a target of the template's policy, so its copy is removed.",
  ClusterUnjoined: "The cluster left the fleet; its objects are released (removed or preserved as asked).",
  Unspecified: "The agent removed the object without a recorded reason (an older control plane).",
  // Hub refusals of agent messages.
  NotSentToCluster: "The agent reported a Work the hub never sent it; the report is ignored.",
  NotInHubSet: "The agent holds a Work the hub does not have for it, with no other intent known; it is told to remove it.",
  NotWanted: "The agent sent metrics for a workload the control plane did not ask about; they are ignored.",
  // Graceful eviction and moves (scheduling/).
  ClusterAffinityChanged: "The cluster left the policy's affinity; it keeps its copy until the replacement is available.",
  TaintUntolerated: "The cluster has a NoExecute taint the policy does not tolerate (--enable-no-execute-taint-eviction); it keeps its copy until the replacement elsewhere is available and the grace period passed.",
  // ClusterTaintPolicy Events (taint-policy/).
  TaintClusterSucceed: "A ClusterTaintPolicy changed the cluster's taints as its conditions matched.",
  TaintClusterFailed: "A ClusterTaintPolicy could not write the cluster's taints; it is retried.",
  NoExecuteNotAllowed: "The ClusterTaintPolicy has a NoExecute taint and the control plane runs without --allow-no-execute-taint-policy, so the policy is not applied.",
  FreshReschedule: "A WorkloadRebalancer asked for a fresh schedule; the cluster keeps its copy until the new placement is available.",
  ApplicationFailure: "The workload stayed Unhealthy in the cluster past its policy's failover tolerationSeconds and moved; the cluster is out of its schedule while the task lasts, and the purge mode says whether the copy stays.",
  ReferencedBindingNotFound: "The WorkloadRebalancer names a workload that has no binding.",
  // Rollout phases (shared/api/types.ts RolloutPhase, ClusterRolloutPhase).
  Progressing: "The rollout is moving through its waves.",
  WaitingForApproval: "The rollout waits for an admin's approval (flotillactl rollout approve).",
  Paused: "The rollout is paused by a user (flotillactl rollout resume continues it).",
  Succeeded: "The rollout reached every cluster and each is healthy on the new revision.",
  RollingBack: "The rollout failed and is going back to the last stable revision.",
  RolledBack: "The rollout failed and every cluster is back on the last stable revision.",
  Aborted: "A user aborted the rollout; clusters stay where they are.",
  Waiting: "This cluster waits for its wave of the rollout.",
  Updating: "This cluster is getting the new revision.",
  Soaking: "This cluster has the new revision and is soaking before the next wave.",
  Failed: "This cluster failed its health gate on the new revision.",
  // Workload rollout words read from members (status/rollout-status.ts).
  NewReplicaSetAvailable: "The member's Deployment finished rolling out its new ReplicaSet.",
  ReplicaSetUpdated: "The member's Deployment is rolling out its new ReplicaSet.",
  ProgressDeadlineExceeded: "The member's Deployment did not progress within its progressDeadlineSeconds.",
  MinimumReplicasAvailable: "The member's Deployment has its minimum available replicas.",
  MinimumReplicasUnavailable: "The member's Deployment lacks its minimum available replicas.",
  // DNS record conditions (dns/dns-conditions.ts).
  RecordsPublished: "The record's names are in its DNSEndpoint for ExternalDNS to publish.",
  DomainNotFound: "The record names a Domain that does not exist.",
  DNSEndpointRejected: "The control cluster refused the record's DNSEndpoint.",
  DNSEndpointConflict: "Another owner already holds the DNSEndpoint the record would write.",
  // FederatedHPA conditions and events (autoscaling/).
  DesiredWithinRange: "The desired replicas are within the FederatedHPA's minReplicas and maxReplicas.",
  TooFewReplicas: "The desired replicas were raised to the FederatedHPA's minReplicas.",
  TooManyReplicas: "The desired replicas were capped at the FederatedHPA's maxReplicas.",
  ScaleUpLimit: "A scale-up policy of the FederatedHPA's behavior limits how fast it grows.",
  ScaleDownLimit: "A scale-down policy of the FederatedHPA's behavior limits how fast it shrinks.",
  ScaleUpStabilized: "The scale-up stabilization window keeps the replicas from growing yet.",
  ScaleDownStabilized: "The scale-down stabilization window keeps the replicas from shrinking yet.",
  SuccessfulRescale: "The FederatedHPA changed the target's replicas.",
  FailedGetScale: "The FederatedHPA could not read or write the target's scale.",
  FailedComputeMetricsReplicas: "The FederatedHPA could not compute replicas from its metrics.",
  FailedGetResourceMetric: "No member reported the resource metric the FederatedHPA needs.",
  FailedGetContainerResourceMetric: "No member reported the container resource metric the FederatedHPA needs.",
  FailedGetObjectMetric: "The FederatedHPA's object metric is not available.",
  FailedGetExternalMetric: "The FederatedHPA's external metric is not available.",
  InvalidMetricSourceType: "The FederatedHPA names a metric source type Flotilla does not know.",
  // Admission webhook answers (webhook/admission.ts).
  Forbidden: "The admission webhook refused the object: the caller may not make it.",
  BadRequest: "The admission webhook refused the object: it is invalid (for example a script that does not compile).",
  // Multi-cluster services (issue 40): a ServiceExport's and a ServiceImport's conditions (KEP-1645's reasons), an import's removal.
  Valid: "The ServiceExport names a Service that can be exported.",
  NoService: "The ServiceExport names no Service of its name in its namespace, so nothing is exported.",
  InvalidServiceType: "The exported Service is ExternalName, which cannot be exported.",
  Ready: "The export is merged into the clusterset's import, which every member with the namespace has.",
  Pending: "The export waits for the clusterset to merge it (its agent reported it; the import is on its way).",
  NoConflicts: "Every cluster's export of this Service agrees on what can conflict.",
  PortConflict: "The exports' ports clash; the import has their union, with the oldest export's where they clash.",
  TypeConflict: "Some exports are headless and some are not; the import takes the oldest export's type.",
  SessionAffinityConflict: "The exports' session affinity differs; the import takes the oldest export's.",
  SessionAffinityConfigConflict: "The exports' session affinity timeout differs; the import takes the oldest export's.",
  InternalTrafficPolicyConflict: "The exports' internalTrafficPolicy differs; the import takes the oldest export's.",
  TrafficDistributionConflict: "The exports' trafficDistribution differs; the import takes the oldest export's.",
  LabelsConflict: "The exports' exportedLabels differ; the import carries the oldest export's set.",
  AnnotationsConflict: "The exports' exportedAnnotations differ; the import carries the oldest export's set.",
  IPFamilyConflict: "An export shares no IP family with the oldest export; its endpoints may not be reachable through the import.",
  ExportsWithdrawn: "No cluster exports the Service any more (each export was deleted, or its Service), so the import leaves the member.",
  // The member API's answers (issue 41, member-api/ and agent/member-api/), as the apiserver words them.
  NotFound: "The member API has no such cluster, or the path names no member endpoint (/clusters/<name>/…).",
  Unauthorized: "The member API needs a client certificate from the fleet's CA: an admin's or a viewer's.",
  TooManyRequests: "The member (through this replica, or its agent) has its most member API requests in flight; retry after Retry-After.",
  MethodNotAllowed: "The member API does not carry this HTTP method (it carries GET, HEAD, POST, PUT, PATCH and DELETE).",
  InternalError: "The agent or the control plane failed on a member API request (the member's apiserver could not be reached, or its answer could not be passed on).",
  // ClusterProfile conditions (issue 41, cluster-profiles/): whether a member's agent joined, and a name another cluster manager holds.
  AgentJoined: "The member's agent reported to the control plane: the cluster is part of the fleet.",
  AgentNotConnected: "No agent has connected for this Cluster yet, so it has not joined the fleet.",
  NoHeartbeatYet: "The control plane has not judged the cluster's health yet: no heartbeat from its agent.",
  Unjoining: "The Cluster is being removed from the fleet; its profile goes with it.",
  ClusterProfileConflict: "A ClusterProfile of another cluster manager holds this Cluster's name, so Flotilla publishes none for it.",
};

/** Reasons made from a prefix and a word (a template literal in the source): "Rollout*" → RolloutPaused, … */
export const REASON_PATTERNS: Readonly<Record<string, string>> = {
  "Rollout*": "The rollout entered the phase its reason names (RolloutPaused, RolloutFailed, …); its message says why.",
};

/** The sentence for a reason; a prefixed reason falls back to its pattern; unknown: undefined. */
export function reasonSentence(reason: string): string | undefined {
  const exact = REASON_SENTENCES[reason];
  if (exact !== undefined) return exact;
  const pattern = Object.keys(REASON_PATTERNS).find((p) => reason.startsWith(p.slice(0, -1)) && reason.length > p.length - 1);
  return pattern === undefined ? undefined : REASON_PATTERNS[pattern];
}
