// What the agent and the hub agree on beyond the proto's shape (DESIGN §11): the protocol version
// and the features an agent declares in its Hello, so the hub never sends an older agent a message
// whose meaning it would get wrong.

/** This agent's protocol version: 2 adds versioned Hellos. An agent that sends 0 is protocol 1. */
export const PROTOCOL_VERSION = 2;

export const FEATURES = {
  /** It keeps each Work's preserveResourcesOnDeletion with its record, so a removal after the binding is gone still preserves. */
  durablePreserve: "durable-preserve",
  /** It never deletes a Namespace or CRD that holds objects Flotilla does not manage. */
  keepUnmanagedContents: "keep-unmanaged-contents",
  /** It never deletes a Namespace or CRD that holds objects another Work (or another fleet) places there (issue 37). */
  keepOtherWorksContents: "keep-other-works-contents",
  /** Its deletes carry the uid of the object it decided to delete. */
  deletePreconditions: "delete-preconditions",
  /** It takes InterpreterCustomizations (Retain, ReflectStatus, InterpretHealth run in the agent) and states their hash in its Hello. */
  interpreterCustomizations: "interpreter-customizations",
  /** It takes MetricsWanted, states its hash in its Hello, and sends WorkloadMetrics for the workloads listed (issue 22). */
  workloadMetrics: "workload-metrics",
  /**
   * Issue 40: it reports its member's ServiceExports (ServiceExportReport, ServiceExportsSynced) and
   * applies the clusterset's imports (Works whose manifests never create their namespace).
   */
  mcs: "mcs",
  /**
   * Issue 41: it takes MemberApiRequest (and its credits and cancels) and answers each with
   * MemberApiResponse frames, as the caller, within the window granted.
   */
  memberApi: "member-api",
} as const;

/** What a hub declares in SyncDone: the agent messages it takes beyond its protocol. */
export const HUB_FEATURES: readonly string[] = [FEATURES.mcs];

/** What this agent declares. */
export const AGENT_FEATURES: readonly string[] = Object.values(FEATURES);
