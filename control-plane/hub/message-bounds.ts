// Bounds on what an agent sends (DESIGN §7): pure. Every string, list and byte field of a
// WorkStatus or a Hello is bounded. A long free-text message is cut with a marker; anything
// absurd (a name no Kubernetes object can have, a list no member holds) refuses the message.
import type { ContentRequest, Hello, ManifestStatus, ResourceIdentifier, ServiceExportReport, ServiceExportsSynced, WorkloadMetrics, WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { earlierFromBits } from "../../shared/earlier-registration.ts";
import { parseWorkKey } from "../../shared/work-key.ts";

export const BOUNDS = {
  /** A Kubernetes name, namespace, group, version or kind (DNS subdomain: 253). */
  name: 253,
  /** group/version/kind/namespace/name. */
  workKey: 5 * 253 + 4,
  /** A content hash (sha256 hex is 64). */
  hash: 128,
  /** A status word (AlreadyExists, UpdateFailed, …) or a version string. */
  word: 128,
  /** Features one Hello may declare, and the length of each. */
  helloFeatures: 32,
  feature: 64,
  /** Free text kept; longer is cut with a marker. */
  message: 4 * 1024,
  /** Free text refused outright. */
  absurdMessage: 1024 * 1024,
  /** Manifests per Work status. */
  manifests: 10_000,
  /** An object's .status as JSON. */
  objectStatus: 1024 * 1024,
  /** Works a Hello may say the agent holds. */
  helloWorks: 100_000,
  /** Works one ContentRequest may ask for. */
  contentKeys: 1_000,
  /** Entries of each kind (resources, Pods, Object, External metrics) in one WorkloadMetrics, and a metric key's length. */
  workloadMetrics: 32,
  metricKey: 1024,
  /** Pods one workload may have in one member. */
  workloadPods: 1_000_000,
  /** Problems one WorkloadMetrics may name (each cut as a message). */
  metricProblems: 8,
  /** One ServiceExportReport's export JSON (issue 40), and the exports one ServiceExportsSynced may list. */
  serviceExport: 512 * 1024,
  serviceExports: 10_000,
} as const;

export type Checked<T> = { ok: true; value: T; truncated: boolean } | { ok: false; reason: string };

export const TRUNCATION_MARKER = "… [truncated by the hub]";

/** The message cut to BOUNDS.message characters with a marker, or undefined when absurd. */
export function boundMessage(text: string): { text: string; truncated: boolean } | undefined {
  if (text.length > BOUNDS.absurdMessage) return undefined;
  if (text.length <= BOUNDS.message) return { text, truncated: false };
  return { text: text.slice(0, BOUNDS.message - TRUNCATION_MARKER.length) + TRUNCATION_MARKER, truncated: true };
}

function tooLong(field: string, value: string, max: number): string | undefined {
  return value.length > max ? `${field} is ${value.length} characters (at most ${max})` : undefined;
}

function checkResource(r: ResourceIdentifier | undefined, at: string): string | undefined {
  if (r === undefined) return undefined;
  for (const f of ["group", "version", "kind", "namespace", "name"] as const) {
    const bad = tooLong(`${at}.resource.${f}`, r[f], BOUNDS.name);
    if (bad !== undefined) return bad;
  }
  return undefined;
}

// An Unschedulable time is an RFC 3339 time (the control plane compares it with its clock).
function unschedulableSinceProblem(since: string | undefined, at: string): string | undefined {
  if (since === undefined) return undefined;
  if (since.length > 40 || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(since) || Number.isNaN(Date.parse(since))) {
    return `${at}.unschedulableSince is not an RFC 3339 time`;
  }
  return undefined;
}

function checkManifest(m: ManifestStatus, i: number): Checked<ManifestStatus> {
  const at = `manifests[${i}]`;
  const bad = checkResource(m.resource, at) ?? tooLong(`${at}.reason`, m.reason, BOUNDS.word);
  if (bad !== undefined) return { ok: false, reason: bad };
  if (m.status.byteLength > BOUNDS.objectStatus) return { ok: false, reason: `${at}.status is ${m.status.byteLength} bytes (at most ${BOUNDS.objectStatus})` };
  const since = unschedulableSinceProblem(m.unschedulableSince, at);
  if (since !== undefined) return { ok: false, reason: since };
  const message = boundMessage(m.message);
  if (message === undefined) return { ok: false, reason: `${at}.message is ${m.message.length} characters` };
  return { ok: true, value: message.truncated ? { ...m, message: message.text } : m, truncated: message.truncated };
}

/** A WorkStatus within bounds (messages cut), or why it is refused. */
export function checkWorkStatus(s: WorkStatus): Checked<WorkStatus> {
  const bad = tooLong("workKey", s.workKey, BOUNDS.workKey) ?? tooLong("observedHash", s.observedHash, BOUNDS.hash) ?? tooLong("reason", s.reason, BOUNDS.word);
  if (bad !== undefined) return { ok: false, reason: bad };
  try {
    parseWorkKey(s.workKey);
  } catch {
    return { ok: false, reason: "workKey is not group/version/kind/namespace/name" };
  }
  if (s.manifests.length > BOUNDS.manifests) return { ok: false, reason: `${s.manifests.length} manifests (at most ${BOUNDS.manifests})` };
  const message = boundMessage(s.message);
  if (message === undefined) return { ok: false, reason: `message is ${s.message.length} characters` };
  let truncated = message.truncated;
  const manifests: ManifestStatus[] = [];
  for (const [i, m] of s.manifests.entries()) {
    const c = checkManifest(m, i);
    if (!c.ok) return c;
    truncated ||= c.truncated;
    manifests.push(c.value);
  }
  return { ok: true, value: truncated ? { ...s, message: message.text, manifests } : s, truncated };
}

/** A Hello within bounds, or why it is refused (the stream then ends). */
export function checkHello(h: Hello): Checked<Hello> {
  const bad = tooLong("clusterName", h.clusterName, BOUNDS.name) ?? tooLong("agentVersion", h.agentVersion, BOUNDS.word) ?? tooLong("customizationsHash", h.customizationsHash ?? "", BOUNDS.hash);
  if (bad !== undefined) return { ok: false, reason: bad };
  const badHash = tooLong("metricsWantedHash", h.metricsWantedHash ?? "", BOUNDS.hash);
  if (badHash !== undefined) return { ok: false, reason: badHash };
  const entries = Object.entries(h.workHashes);
  if (entries.length > BOUNDS.helloWorks) return { ok: false, reason: `the Hello names ${entries.length} Works (at most ${BOUNDS.helloWorks})` };
  for (const [key, hash] of entries) {
    const badEntry = tooLong("a workHashes key", key, BOUNDS.workKey) ?? tooLong("a workHashes value", hash, BOUNDS.hash);
    if (badEntry !== undefined) return { ok: false, reason: badEntry };
  }
  const earlier = h.earlierRegistrationWorks ?? [];
  if (earlier.length > entries.length) return { ok: false, reason: `the Hello names ${earlier.length} Works of an earlier registration, more than the ${entries.length} it holds` };
  for (const key of earlier) if (!Object.hasOwn(h.workHashes, key)) return { ok: false, reason: "an earlierRegistrationWorks key the Hello's workHashes do not name" };
  const bits = h.earlierRegistrationBits === undefined || h.earlierRegistrationBits.length === 0 ? undefined : earlierFromBits(Object.keys(h.workHashes), h.earlierRegistrationBits);
  if (bits !== undefined && !bits.ok) return { ok: false, reason: bits.reason };
  if (h.features.length > BOUNDS.helloFeatures) return { ok: false, reason: `the Hello names ${h.features.length} features (at most ${BOUNDS.helloFeatures})` };
  for (const f of h.features) {
    const badFeature = tooLong("a feature", f, BOUNDS.feature);
    if (badFeature !== undefined) return { ok: false, reason: badFeature };
  }
  return { ok: true, value: h, truncated: false };
}

/** A ContentRequest within bounds, or why it is refused (it is then dropped whole). */
export function checkContentRequest(r: ContentRequest): Checked<ContentRequest> {
  if (r.workKeys.length > BOUNDS.contentKeys) return { ok: false, reason: `the ContentRequest names ${r.workKeys.length} Works (at most ${BOUNDS.contentKeys})` };
  for (const key of r.workKeys) {
    const bad = tooLong("a workKeys entry", key, BOUNDS.workKey);
    if (bad !== undefined) return { ok: false, reason: bad };
  }
  return { ok: true, value: r, truncated: false };
}

const INT64_MAX = 2n ** 63n - 1n;

/** A milli-unit sum: a decimal integer within int64 (negative only where allowed). */
function badQuantity(field: string, q: string, negative: boolean): string | undefined {
  if (!(negative ? /^-?\d{1,19}$/ : /^\d{1,19}$/).test(q) || BigInt(q) > INT64_MAX || BigInt(q) < -INT64_MAX) return `${field} is not a ${negative ? "" : "non-negative "}int64 decimal`;
  return undefined;
}

/** The three groups of a metric must hold every pod of the workload. */
function badSplit(at: string, pods: number, groups: number[]): string | undefined {
  const sum = groups.reduce((a, b) => a + b, 0);
  return sum === pods ? undefined : `${at}: ${sum} pods in its groups, the workload has ${pods}`;
}

function badEntries(m: WorkloadMetrics): string | undefined {
  for (const list of ["resources", "podsMetrics", "objectMetrics", "externalMetrics"] as const) {
    if (m[list].length > BOUNDS.workloadMetrics) return `${m[list].length} ${list} (at most ${BOUNDS.workloadMetrics})`;
    const keys = new Set<string>();
    for (const e of m[list]) {
      const bad = tooLong(`a ${list} key`, e.key, BOUNDS.metricKey) ?? (keys.has(e.key) ? `${list} names ${JSON.stringify(e.key.slice(0, 64))} twice` : undefined);
      if (bad !== undefined) return bad;
      keys.add(e.key);
    }
  }
  for (const r of m.resources) {
    const at = `resources[${JSON.stringify(r.key.slice(0, 64))}]`;
    const bad =
      badSplit(at, m.pods, [r.readyPods, r.unreadyPods, r.missingPods]) ??
      (r.podsWithoutRequest > m.pods ? `${at}.podsWithoutRequest exceeds the pods` : undefined) ??
      badQuantity(`${at}.readyUsage`, r.readyUsage, false) ??
      badQuantity(`${at}.readyRequests`, r.readyRequests, false) ??
      badQuantity(`${at}.unreadyRequests`, r.unreadyRequests, false) ??
      badQuantity(`${at}.missingRequests`, r.missingRequests, false);
    if (bad !== undefined) return bad;
  }
  for (const p of m.podsMetrics) {
    const at = `podsMetrics[${JSON.stringify(p.key.slice(0, 64))}]`;
    const bad = badSplit(at, m.pods, [p.readyPods, p.unreadyPods, p.missingPods]) ?? badQuantity(`${at}.readyValue`, p.readyValue, true);
    if (bad !== undefined) return bad;
  }
  for (const v of [...m.objectMetrics, ...m.externalMetrics]) {
    const bad = badQuantity(`the value of ${JSON.stringify(v.key.slice(0, 64))}`, v.value, true);
    if (bad !== undefined) return bad;
  }
  return undefined;
}

/** A WorkloadMetrics within bounds and consistent (problems cut), or why it is refused (it is then dropped). */
export function checkWorkloadMetrics(m: WorkloadMetrics): Checked<WorkloadMetrics> {
  if (m.workload === undefined) return { ok: false, reason: "no workload" };
  const w = m.workload;
  const bad =
    tooLong("workload.apiVersion", w.apiVersion, BOUNDS.name) ??
    tooLong("workload.kind", w.kind, BOUNDS.name) ??
    tooLong("workload.namespace", w.namespace, BOUNDS.name) ??
    tooLong("workload.name", w.name, BOUNDS.name) ??
    tooLong("wantedHash", m.wantedHash, BOUNDS.hash) ??
    (m.pods > BOUNDS.workloadPods ? `${m.pods} pods (at most ${BOUNDS.workloadPods})` : undefined) ??
    (m.readyPods > m.pods ? `${m.readyPods} ready pods of ${m.pods}` : undefined) ??
    (m.windowStartMs < 0 || m.windowEndMs < m.windowStartMs ? "the samples' window ends before it starts" : undefined) ??
    (m.problems.length > BOUNDS.metricProblems ? `${m.problems.length} problems (at most ${BOUNDS.metricProblems})` : undefined) ??
    badEntries(m);
  if (bad !== undefined) return { ok: false, reason: bad };
  const problems: string[] = [];
  let truncated = false;
  for (const p of m.problems) {
    const cut = boundMessage(p);
    if (cut === undefined) return { ok: false, reason: `a problem is ${p.length} characters` };
    truncated ||= cut.truncated;
    problems.push(cut.text);
  }
  return { ok: true, value: truncated ? { ...m, problems } : m, truncated };
}

/** A DNS-1123 label: a Kubernetes namespace or Service name. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function badServiceRef(namespace: string, name: string): string | undefined {
  if (!DNS_LABEL.test(namespace)) return `namespace ${JSON.stringify(namespace.slice(0, 64))} is not a DNS label`;
  if (!DNS_LABEL.test(name)) return `name ${JSON.stringify(name.slice(0, 64))} is not a DNS label`;
  return undefined;
}

/** A ServiceExportReport within bounds (issue 40), or why it is refused (dropped whole); its JSON is checked by mcs-controller/. */
export function checkServiceExport(r: ServiceExportReport): Checked<ServiceExportReport> {
  const bad =
    badServiceRef(r.namespace, r.name) ??
    (r.export.byteLength > BOUNDS.serviceExport ? `the export is ${r.export.byteLength} bytes (at most ${BOUNDS.serviceExport})` : undefined) ??
    (r.withdrawn && r.export.byteLength > 0 ? "a withdrawn export carries an export" : undefined) ??
    (!r.withdrawn && r.export.byteLength === 0 ? "an export that is not withdrawn carries nothing" : undefined);
  return bad === undefined ? { ok: true, value: r, truncated: false } : { ok: false, reason: bad };
}

/** A ServiceExportsSynced within bounds, or why it is refused. */
export function checkServiceExportsSynced(m: ServiceExportsSynced): Checked<ServiceExportsSynced> {
  if (m.exports.length > BOUNDS.serviceExports) return { ok: false, reason: `it lists ${m.exports.length} exports (at most ${BOUNDS.serviceExports})` };
  for (const e of m.exports) {
    const [namespace = "", name = "", ...rest] = e.split("/");
    const bad = rest.length > 0 ? `${JSON.stringify(e.slice(0, 64))} is not namespace/name` : badServiceRef(namespace, name);
    if (bad !== undefined) return { ok: false, reason: bad };
  }
  return { ok: true, value: m, truncated: false };
}
