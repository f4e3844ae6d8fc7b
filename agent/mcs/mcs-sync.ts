// The agent's multi-cluster services (issue 40, DESIGN §13): watches its member's ServiceExports,
// their Services and EndpointSlices, and Flotilla's ServiceImports; reports each export to the hub
// (only what changed; withdrawn only on what a synced watch saw), writes the export's conditions,
// and gives each import Flotilla applied its IPs (the derived Service's) and its status. The
// imports themselves arrive as Works (control-plane/mcs/): this file never creates or deletes them.
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { CLUSTERSET_STATUS_ANNOTATION, KUBE_SERVICE_NAME_LABEL, MCS_API_VERSION, MCS_DERIVED_SERVICE_ANNOTATION, MCS_IMPORT_LABEL, MCS_SERVICE_NAME_LABEL, MCS_SOURCE_CLUSTER_LABEL } from "../../shared/api/mcs.ts";
import { canonicalJson } from "../../shared/content-hash.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import type { ServiceExportReport, ServiceExportsSynced } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { Informer } from "../../shared/informer.ts";
import { KubeWatch } from "../../shared/kube-watch.ts";
import { isKubeStatus, type KubeRest, type ResourceInfo } from "../../shared/kube-rest.ts";
import { applyClusterProperties, installMcsCrds } from "../../shared/mcs-crd-install.ts";
import { parseClustersetStatus, timedConditions, wantedExportConditions } from "./export-conditions.ts";
import { type EndpointSliceObject, exportVerdict, type ServiceExportObject, type ServiceObject } from "./export-report.ts";
import { importIps, importStatus, ipsDiffer, type ServiceImportObject } from "./import-fields.ts";

const FIELD_MANAGER = "flotilla-agent-mcs";
const res = (apiVersion: string, kind: string, plural: string): ResourceInfo => ({ apiVersion, kind, plural, namespaced: true });
const EXPORTS = res(MCS_API_VERSION, "ServiceExport", "serviceexports");
const IMPORTS = res(MCS_API_VERSION, "ServiceImport", "serviceimports");
const SERVICES = res("v1", "Service", "services");
const SLICES = res("discovery.k8s.io/v1", "EndpointSlice", "endpointslices");

const keyOf = (namespace: string | undefined, name: string | undefined) => `${namespace ?? ""}/${name ?? ""}`;
const split = (key: string) => key.split("/") as [string, string];

/** What a Service informer keeps: the fields an export reports and an import's IPs come from. */
function serviceSummary(s: ServiceObject): ServiceObject {
  const { name, namespace, resourceVersion, uid, labels } = s.metadata;
  return { apiVersion: s.apiVersion, kind: s.kind, metadata: { name, namespace, resourceVersion, uid, labels }, ...(s.spec === undefined ? {} : { spec: s.spec }) };
}

export class McsSync {
  private readonly exports: Informer<ServiceExportObject>;
  private readonly services: Informer<ServiceObject>;
  private readonly slices: Informer<EndpointSliceObject>;
  private readonly imports: Informer<ServiceImportObject>;
  /** namespace/service → slice name → slice. */
  private readonly slicesByService = new Map<string, Map<string, EndpointSliceObject>>();
  /** namespace/name → the report last made (sent when the stream has room). */
  private readonly reports = new Map<string, ServiceExportReport>();
  readonly controller: Controller;
  private readonly rest: KubeRest;
  private readonly log: Logger;
  private readonly cluster: string;
  private readonly send: { report(key: string): void; synced(): void };
  private started: Promise<void> | undefined;
  /** namespace/name whose status another field manager holds (logged once, not fought over). */
  private readonly contested = new Set<string>();

  private readonly clustersetId: string;

  constructor(opts: { kc: KubeConfig; rest: KubeRest; log: Logger; cluster: string; clustersetId: string; send: { report(key: string): void; synced(): void } }) {
    const { kc, rest } = opts;
    this.clustersetId = opts.clustersetId;
    this.rest = rest;
    this.cluster = opts.cluster;
    this.send = opts.send;
    this.log = opts.log.child({ component: "mcs" });
    const log = this.log;
    const watch = new KubeWatch(kc);
    this.exports = new Informer({ kc, rest, watch, resource: EXPORTS, log });
    this.services = new Informer({ kc, rest, watch, resource: SERVICES, transform: serviceSummary, log });
    this.slices = new Informer({ kc, rest, watch, resource: SLICES, labelSelector: `${KUBE_SERVICE_NAME_LABEL},!${MCS_SOURCE_CLUSTER_LABEL}`, log });
    this.imports = new Informer({ kc, rest, watch, resource: IMPORTS, labelSelector: `${MCS_IMPORT_LABEL}=true`, log });
    this.controller = new Controller({ name: "mcs", reconcile: (key) => this.reconcile(key), log, workers: 2 });
    const enqueue = (key: string) => this.controller.enqueue(key);
    const own = { add: (o: { metadata: { namespace?: string; name?: string } }) => enqueue(keyOf(o.metadata.namespace, o.metadata.name)) };
    this.exports.on({ add: own.add, update: own.add, delete: own.add });
    this.imports.on({ add: own.add, update: own.add, delete: own.add });
    const service = (s: ServiceObject) => {
      enqueue(keyOf(s.metadata.namespace, s.metadata.name));
      // A derived Service: its import's IPs.
      const imported = s.metadata.labels?.[MCS_SERVICE_NAME_LABEL];
      if (s.metadata.labels?.[MCS_IMPORT_LABEL] === "true" && imported !== undefined) enqueue(keyOf(s.metadata.namespace, imported));
    };
    this.services.on({ add: service, update: service, delete: service });
    const slice = (s: EndpointSliceObject, gone: boolean) => {
      const svc = s.metadata.labels?.[KUBE_SERVICE_NAME_LABEL];
      if (svc === undefined) return;
      const key = keyOf(s.metadata.namespace, svc);
      const held = this.slicesByService.get(key) ?? new Map<string, EndpointSliceObject>();
      if (gone) held.delete(s.metadata.name ?? "");
      else held.set(s.metadata.name ?? "", s);
      if (held.size === 0) this.slicesByService.delete(key);
      else this.slicesByService.set(key, held);
      enqueue(key);
    };
    this.slices.on({ add: (s) => slice(s, false), update: (s) => slice(s, false), delete: (s) => slice(s, true) });
  }

  /**
   * Installs the MCS CRDs (never downgrading what is served) and the cluster's ClusterProperties,
   * then starts the watches and, once they have listed, the controller. Without the CRDs (refused,
   * no RBAC) the watches retry with backoff; nothing else of the agent waits for them.
   */
  start(): Promise<void> {
    this.started ??= (async () => {
      try {
        await installMcsCrds(this.rest, this.log);
        await applyClusterProperties(this.rest, { clusterName: this.cluster, clustersetName: this.clustersetId, log: this.log });
      } catch (err) {
        this.log.warn({ err: String(err) }, "cannot install the MCS CRDs or the cluster's ClusterProperties; exports wait for them");
      }
      const informers = [this.exports, this.services, this.slices, this.imports];
      await Promise.all(informers.map((i) => i.start()));
      await Promise.all(informers.map((i) => i.whenSynced()));
      this.controller.start();
    })();
    return this.started;
  }

  private get listed(): boolean {
    return this.exports.synced && this.services.synced && this.slices.synced && this.imports.synced;
  }

  /** After the hub's SyncDone: every export is reported again, then the full list (once the watches have listed). */
  afterSync(): void {
    void this.start().then(() => {
      for (const e of this.exports.list()) this.refreshReport(keyOf(e.metadata.namespace, e.metadata.name));
      for (const key of this.reports.keys()) this.send.report(key);
      this.send.synced();
    });
  }

  /** The report for the hub, or undefined when there is nothing to say. A withdrawal is said once. */
  reportMessage(key: string): ServiceExportReport | undefined {
    const r = this.reports.get(key);
    if (r?.withdrawn === true) this.reports.delete(key);
    return r;
  }

  /** Every export the member holds now, valid or not reported as withdrawn. */
  syncedMessage(): ServiceExportsSynced | undefined {
    if (!this.listed) return undefined;
    return { exports: [...this.reports].filter(([, r]) => !r.withdrawn).map(([k]) => k) };
  }

  /** Makes the report of one export from the caches; tells the stream when it changed. */
  private refreshReport(key: string): ReturnType<typeof exportVerdict> | undefined {
    const [namespace, name] = split(key);
    const exp = this.exports.get(name, namespace);
    const held = this.reports.get(key);
    if (exp === undefined) {
      // Seen deleted on a listed watch: withdrawn (the hub also learns it from the next full list).
      if (held !== undefined && !held.withdrawn) this.update(key, { namespace, name, export: Buffer.alloc(0), withdrawn: true });
      return undefined;
    }
    const verdict = exportVerdict(exp, this.services.get(name, namespace), [...(this.slicesByService.get(key)?.values() ?? [])]);
    const report: ServiceExportReport = verdict.valid
      ? { namespace, name, export: Buffer.from(canonicalJson(verdict.spec)), withdrawn: false }
      : { namespace, name, export: Buffer.alloc(0), withdrawn: true };
    if (held === undefined && report.withdrawn) return verdict;
    if (held === undefined || held.withdrawn !== report.withdrawn || !Buffer.from(held.export).equals(Buffer.from(report.export))) this.update(key, report);
    return verdict;
  }

  private update(key: string, report: ServiceExportReport): void {
    this.reports.set(key, report);
    this.send.report(key);
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    if (!this.listed) return { requeueAfterMs: 1000 };
    const [namespace, name] = split(key);
    const verdict = this.refreshReport(key);
    const imp = this.imports.get(name, namespace);
    const clusterset = parseClustersetStatus(imp?.metadata.annotations?.[CLUSTERSET_STATUS_ANNOTATION]);
    const exp = this.exports.get(name, namespace);
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    if (exp !== undefined && verdict !== undefined) {
      const conditions = timedConditions(wantedExportConditions(verdict, clusterset, this.cluster), exp.status?.conditions ?? [], now);
      if (conditions !== undefined) await this.applyStatus(EXPORTS, "ServiceExport", namespace, name, { conditions });
    }
    if (imp !== undefined) {
      const derivedName = imp.metadata.annotations?.[MCS_DERIVED_SERVICE_ANNOTATION];
      const ips = importIps(imp, derivedName === undefined ? undefined : this.services.get(derivedName, namespace));
      if (ips !== undefined && ipsDiffer(imp, ips)) {
        await this.rest.apply(`/apis/${MCS_API_VERSION}/namespaces/${namespace}/serviceimports/${name}`, { apiVersion: MCS_API_VERSION, kind: "ServiceImport", metadata: { name, namespace }, spec: ips }, `${FIELD_MANAGER}-ips`);
      }
      const status = importStatus(imp, clusterset, now);
      if (status !== undefined) await this.applyStatus(IMPORTS, "ServiceImport", namespace, name, status);
    }
    return undefined;
  }

  /**
   * Applies conditions without force: a condition another controller owns (a second MCS
   * implementation in the member) is left to it and said once in the log, never fought over.
   */
  private async applyStatus(r: ResourceInfo, kind: string, namespace: string, name: string, status: unknown): Promise<void> {
    const key = keyOf(namespace, name);
    try {
      await this.rest.apply(`/apis/${r.apiVersion}/namespaces/${namespace}/${r.plural}/${name}/status`, { apiVersion: r.apiVersion, kind, metadata: { name, namespace }, status }, FIELD_MANAGER, false);
      this.contested.delete(key);
    } catch (err) {
      // Gone meanwhile (its namespace deleted): nothing to say.
      if (isKubeStatus(err, 404)) return;
      if (isKubeStatus(err, 409)) {
        if (!this.contested.has(key)) this.log.warn({ kind, namespace, name, err: String(err) }, "another controller owns conditions Flotilla would write; leaving them to it");
        this.contested.add(key);
        return;
      }
      throw err;
    }
  }

  stop(): Promise<void> {
    for (const i of [this.exports, this.services, this.slices, this.imports]) i.stop();
    return this.controller.stop();
  }
}
