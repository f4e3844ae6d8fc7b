// The import rules of control-plane/README.md, as a pure decision: may file A import B?
// Paths are repository-relative ("control-plane/hub/hub.ts"); a package is its specifier.
import { dirname, join, normalize } from "node:path";

/** Folders of control-plane/ whose files decide and never do I/O. */
export const PURE_FOLDERS = ["scheduling", "rendering", "autoscaling", "mcs"] as const;

/** shared/ modules with no I/O, which pure folders may use. */
export const PURE_SHARED = [
  "shared/api/types.ts",
  "shared/content-hash.ts",
  "shared/label-selector.ts",
  "shared/quantity.ts",
  "shared/work-key.ts",
  "shared/duration.ts",
  "shared/cluster-ready.ts",
  "shared/interpreter/interpreter.ts",
  "shared/api/autoscaling.ts",
  "shared/api/mcs.ts",
];

/** shared/ folders whose every (non-test) file has no I/O: the native interpreters, the autoscaling rules. */
export const PURE_SHARED_FOLDERS = ["shared/interpreter/native/", "shared/autoscaling/"];

/** Whether a shared/ file is one pure folders may import. */
export function isPureShared(file: string): boolean {
  return PURE_SHARED.includes(file) || PURE_SHARED_FOLDERS.some((f) => file.startsWith(f));
}

/** Packages with no I/O, which pure folders may use. */
const PURE_PACKAGES = ["fast-json-patch", "yaml"];

/** The top-level modules of control-plane/ that folders may use: the shared context and gRPC helpers. */
const TOP_SHARED = ["context.ts", "rpc.ts"];

/**
 * Modules every folder may import, besides its FOLDER_IMPORTS: the shared caches (`Caches`, the
 * informers over Flotilla's kinds and the binding index) that the context holds, as `caches.ts`
 * was at the top before (the index and the entries behind it stay caches/' own). Pure folders
 * still may not (they import only pure code), so caches/ may import pure folders only: it sits
 * below every other folder in the layering.
 */
export const COMMON_IMPORTS = ["caches/caches.ts"] as const;

/**
 * What each control-plane folder may import from control-plane/, besides its own files,
 * TOP_SHARED and COMMON_IMPORTS: a folder name, or one file ("works/work-store.ts"). The table is
 * a layering: no folder imports one that imports it.
 */
export const FOLDER_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  // The shared caches, which every folder may import: a binding's name and template, its policy, a NoExecute taint's reading.
  caches: ["scheduling/binding-spec.ts", "scheduling/no-execute.ts", "scheduling/policy-match.ts"],
  // Leader election (HA), run in a worker thread of its own; only the assembly starts it.
  leadership: [],
  // Installs the CRDs of control-plane/crds/ and their admission policies at start; the assembly, scripts and tests call it.
  "crd-install": [],
  scheduling: [],
  rendering: ["scheduling"],
  detector: ["scheduling"],
  works: ["scheduling", "rendering", "detector", "rollout"],
  // The hub serves the Work store and never imports a controller.
  hub: ["works/work-store.ts"],
  clusters: ["hub"],
  status: ["scheduling", "works", "detector", "hub"],
  // The DNS controller reads bindings and Clusters through the caches; scheduling/ says what Ready is.
  dns: ["scheduling"],
  // Which served resource a user's kind name means (the Admin API's and explain's resolver).
  kinds: [],
  // Why a template is (not) where expected (issue 24): the real policy match and per-cluster verdicts, the stores it reads.
  explain: ["scheduling", "works", "status", "detector/template-informers.ts", "kinds"],
  admin: ["scheduling", "rendering", "detector", "works", "hub", "clusters", "status", "rollout", "kinds", "explain"],
  // The admission webhook: the check is shared/interpreter's, the Lua runtime injected; the quota checks are quota/'s.
  webhook: ["quota"],
  // The interpreter registry's customizations: shared/interpreter's runtime and rules.
  interpreter: [],
  // The FederatedHPA's decisions: the HPA algorithm over members' metric summaries.
  autoscaling: [],
  // Progressive rollout's decisions (issue 23): waves, health gates, approvals, rollback.
  rollout: [],
  // The FederatedHPA and CronFederatedHPA controllers: the algorithm's runs, the templates the detector watches, the status' write check, the Event recorder.
  "autoscaling-controller": ["autoscaling", "detector/template-informers.ts", "status/status-holds.ts", "status/event-recorder.ts"],
  // Summaries and status reports between replicas: who holds which cluster (its Lease), the hub's checks on a summary and a report, the trim of a report too large to forward.
  peers: ["clusters/cluster-leases.ts", "clusters/cluster-lease.ts", "hub/message-bounds.ts", "hub/metrics-admission.ts", "status/status-store.ts"],
  // The WorkloadRebalancer controller: binding names and the fresh-reschedule trigger rule.
  rebalancer: ["scheduling/binding-spec.ts", "scheduling/fresh-reschedule.ts"],
  // The leader's rollout controller (issue 23): the wave planner, the revisions and Works it reads, the Event recorder.
  "rollout-controller": ["rollout", "works", "rendering", "scheduling", "detector/template-informers.ts", "status/event-recorder.ts"],
  // The ClusterTaintPolicy controller (issue 26): which clusters a policy targets (the placement's affinity rule), the Event recorder.
  "taint-policy": ["scheduling/placement.ts", "status/event-recorder.ts"],
  // SIG Multicluster's ClusterProfile per member Cluster (issue 41): the Event recorder, for a name another cluster manager's profile holds.
  "cluster-profiles": ["status/event-recorder.ts"],
  // The web dashboard (issue 24): views over the caches, the admin revocation list, the login link's shape, explain; reads inside members through the member API's exchange (issue 41).
  dashboard: ["admin/revocation-file.ts", "admin/admin-dashboard.ts", "explain", "member-api/member-api-exchange.ts"],
  // FederatedResourceQuota (issue 26): the quota arithmetic and checks, its Works in the store, its status.
  quota: ["works/work-store.ts"],
  // Multi-cluster services (issue 40): the agents' export reports → records, the merged imports as Works in the store.
  "mcs-controller": ["mcs", "works/work-store.ts", "scheduling/acceptance.ts"],
  // The MCS merge (issue 40), pure: exports from every cluster → each member's import Work.
  mcs: [],
  // The member API's listener (issue 41): callers authenticated as on the Admin API, their requests carried by the hub's sessions.
  "member-api": ["hub", "admin/revocation-file.ts", "clusters/cluster-leases.ts"],
};

/** The assembly: only bin/ and tests start the control plane. */
const ASSEMBLY = ["control-plane/control-plane.ts", "control-plane/main.ts"];

/** Folders of agent/ whose files decide and never do I/O. */
export const AGENT_PURE_FOLDERS = ["judge"] as const;

/**
 * What each agent folder may import from agent/, besides its own files: a folder name, or one file
 * ("status/work-status.ts"). A layering, as FOLDER_IMPORTS is; only the assembly (agent.ts,
 * main.ts) imports across all of them, and nothing imports it.
 */
export const AGENT_FOLDER_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  // Pure: every verdict on a recorded object (delete, keep, release, prune, adopt, by hash), the record's shapes.
  judge: [],
  // The member's metrics for autoscaling, and the pod summary heartbeats and status share.
  metrics: [],
  heartbeat: ["metrics/metrics-summary.ts"],
  // A Work's status from its manifests' outcomes, and what the member's caches add (endpoints, Unschedulable pods).
  status: ["metrics/metrics-summary.ts"],
  // The fleet's interpreter customizations, compiled and kept.
  interpreter: [],
  // The stream, the agent's identity, live reads for the hub.
  hub: [],
  // The record and the only code that deletes or releases a member object, on the judge's verdict.
  applied: ["judge"],
  // One manifest onto the member; never deletes.
  apply: ["judge", "applied/applied-store.ts", "applied/object-watch.ts", "status/work-status.ts"],
  // The per-Work controller: a chain of steps over (Work, record).
  work: ["judge", "applied", "apply", "status"],
  // Multi-cluster services (issue 40): the member's exports reported, the imports' IPs and status.
  mcs: [],
  // The member API (issue 41): callers' requests made to the member as the caller, answered in frames.
  "member-api": [],
};

/** The agent's assembly: nothing in agent/ imports it but main.ts. */
const AGENT_ASSEMBLY = ["agent/agent.ts", "agent/main.ts"];

/** Why agent file `from` may not import `to`, or undefined (both as resolveImport gives them). */
function agentImportViolation(from: string, to: string): string | undefined {
  if (AGENT_ASSEMBLY.includes(to) && !(from === "agent/main.ts" && to === "agent/agent.ts")) {
    return "nothing in agent/ imports the assembly (agent.ts, main.ts)";
  }
  const folder = folderOf(from, "agent");
  if (folder === undefined) return undefined;
  if ((AGENT_PURE_FOLDERS as readonly string[]).includes(folder)) {
    const pure = isFile(to) ? isPureShared(to) || folderOf(to, "agent") === folder : to === "node:crypto";
    if (!pure) return `agent/${folder}/ is pure: it may import only its own files, ${[...PURE_SHARED, ...PURE_SHARED_FOLDERS].join(", ")} and node:crypto`;
  }
  if (!isFile(to) || sideOf(to) !== "agent") return undefined;
  const targetFolder = folderOf(to, "agent");
  if (targetFolder === folder) return undefined;
  if (targetFolder === undefined) return `agent/${folder}/ may not import the top of agent/ (the assembly)`;
  const allowed = AGENT_FOLDER_IMPORTS[folder] ?? [];
  if (allowed.includes(targetFolder) || allowed.includes(to.slice("agent/".length))) return undefined;
  return `agent/${folder}/ may not import agent/${targetFolder}/ (it may import: ${allowed.length === 0 ? "no other folder" : allowed.join(", ")})`;
}

/** The repository path an import names, or the specifier itself for a package or builtin. */
export function resolveImport(from: string, specifier: string): string {
  if (!specifier.startsWith(".")) return specifier;
  return normalize(join(dirname(from), specifier));
}

const sideOf = (path: string) => path.split("/")[0] ?? "";
const isFile = (to: string) => to.endsWith(".ts") || to.endsWith(".js");

/** Why `from` may not import `to` (both as resolveImport gives them), or undefined when it may. */
export function importViolation(from: string, to: string): string | undefined {
  const fromSide = sideOf(from);
  const toSide = isFile(to) ? sideOf(to) : "";
  if (fromSide === "control-plane" && toSide === "agent") return "control-plane/ never imports agent/";
  if (fromSide === "agent" && toSide === "control-plane") return "agent/ never imports control-plane/";
  if (fromSide === "shared" && (toSide === "agent" || toSide === "control-plane")) return "shared/ imports neither side";
  // Tests and their fixtures may use test tooling and any code they test.
  if (isTestCode(from)) return undefined;
  if (fromSide === "agent") return agentImportViolation(from, to);
  if (fromSide !== "control-plane") return undefined;

  const folder = folderOf(from);
  if (ASSEMBLY.includes(to) && !(from === "control-plane/main.ts" && to === "control-plane/control-plane.ts")) {
    return "nothing in control-plane/ imports the assembly (control-plane.ts, main.ts)";
  }
  if (folder !== undefined && (PURE_FOLDERS as readonly string[]).includes(folder)) {
    const pure = isFile(to) ? isPureShared(to) || (PURE_FOLDERS as readonly string[]).includes(folderOf(to) ?? "") : PURE_PACKAGES.includes(to);
    if (!pure) return `${folder}/ is pure: it may import only pure folders, ${[...PURE_SHARED, ...PURE_SHARED_FOLDERS].join(", ")} and ${PURE_PACKAGES.join(", ")}`;
  }
  if (folder === undefined || toSide !== "control-plane") return undefined;
  const target = to.slice("control-plane/".length);
  const targetFolder = folderOf(to);
  if (targetFolder === folder) return undefined;
  if (targetFolder === undefined) {
    return TOP_SHARED.includes(target) ? undefined : `${folder}/ may import only ${TOP_SHARED.join(", ")} from the top of control-plane/`;
  }
  const allowed = FOLDER_IMPORTS[folder] ?? [];
  if ((COMMON_IMPORTS as readonly string[]).includes(target) || allowed.includes(targetFolder) || allowed.includes(target)) return undefined;
  return `${folder}/ may not import ${targetFolder}/ (it may import: ${allowed.length === 0 ? "no other folder" : allowed.join(", ")}; and every folder ${COMMON_IMPORTS.join(", ")})`;
}

/** A test (`*.test.ts`) or what tests share (`*.fixtures.ts`): no part of the running program. */
export function isTestCode(path: string): boolean {
  return path.endsWith(".test.ts") || path.endsWith(".fixtures.ts");
}

/** The folder of `side` (control-plane/ or agent/) a path lies in, or undefined at the top of the side or elsewhere. */
function folderOf(path: string, side = "control-plane"): string | undefined {
  const parts = path.split("/");
  return parts[0] === side && parts.length > 2 ? parts[1] : undefined;
}

/** The module specifiers a TypeScript source imports or re-exports, statically or with import(). */
export function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const patterns = [/^\s*(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']/gms, /^\s*import\s*["']([^"']+)["']/gm, /\bimport\(\s*["']([^"']+)["']\s*\)/g];
  for (const re of patterns) for (const m of source.matchAll(re)) specifiers.push(m[1] ?? "");
  return specifiers;
}
