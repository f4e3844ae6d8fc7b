// Assembles the control plane: informers, controllers, the Work cache and the gRPC hub.
import { Server, ServerCredentials } from "@grpc/grpc-js";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { Controller } from "../shared/controller.ts";
import { Discovery } from "../shared/discovery.ts";
import { startHealthServer } from "../shared/health-server.ts";
import { AgentHubService, type RegisterRequest, type RegisterResponse, RegistrationService } from "../shared/gen/flotilla/v1alpha1/agent.ts";
import { KubeRest } from "../shared/kube-rest.ts";
import { counterOf, gaugeOf } from "../shared/metrics.ts";
import { parseWorkKey, templateKeyOfBinding } from "../shared/work-key.ts";
import { AdminService } from "../shared/gen/flotilla/v1alpha1/admin.ts";
import { Admin } from "./admin/admin.ts";
import { BindingController } from "./detector/binding-controller.ts";
import { Caches } from "./caches.ts";
import { ClusterController } from "./clusters/cluster-controller.ts";
import { installCrds } from "./crds.ts";
import { DEPENDENCY_KINDS } from "./detector/dependencies.ts";
import { EventRecorder } from "./status/event-recorder.ts";
import { LeaderElector } from "./leader-election.ts";
import { ScheduleOutcomes } from "./scheduling/schedule-outcomes.ts";
import { Registrar } from "./clusters/registration.ts";
import { shutdownServer, unaryHandler } from "./rpc.ts";
import { UnjoinController } from "./clusters/unjoin-controller.ts";
import { Hub } from "./hub/hub.ts";
import { StatusController } from "./status/status-controller.ts";
import { StatusStore } from "./status/status-store.ts";
import { type KindRef, TemplateInformers } from "./detector/template-informers.ts";
import { WorkCache } from "./works/work-cache.ts";
import { WorkStore } from "./works/work-store.ts";

export interface ControlPlaneOptions {
  kc: KubeConfig;
  log: Logger;
  /** host:port for the agent hub (port 0 picks one). */
  grpcListen: string;
  tls: { caPem: string; certPem: string; keyPem: string };
  /** host:port for /healthz, /readyz, /metrics; empty disables. */
  healthListen: string;
  installCrds: boolean;
  clusterFailureMs: number;
  clusterSuccessMs: number;
  clusterStatusUpdateMs: number;
  /** Lease-based leader election; without it this replica always leads. */
  leaderElection?: { namespace: string; identity: string; leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** Called when this replica loses leadership (the process should exit and be restarted). */
  onLostLeadership?: () => void;
  /** Registration of new members and renewal of agent certificates; needs the CA's key. */
  registration?: { caKeyPem: string; listen: string; tokenNamespace: string; certValidityMs: number };
}

export interface RunningControlPlane {
  grpcPort: number;
  /** The registration listener's port, when registration is on. */
  registrationPort: number | undefined;
  healthPort: number | undefined;
  hub: Hub;
  works: WorkStore;
  isLeader(): boolean;
  status: StatusController;
  stop(): Promise<void>;
}

/** Starts every part; resolves once caches are synced and the hub accepts agents. */
export async function startControlPlane(opts: ControlPlaneOptions): Promise<RunningControlPlane> {
  const { kc, log } = opts;
  const rest = new KubeRest(kc, { maxSockets: 32 });
  const discovery = new Discovery(rest);
  if (opts.installCrds) {
    await installCrds(kc);
    log.info("CRDs installed");
  }
  const caches = new Caches(kc, rest, log);
  const works = new WorkStore();
  const statuses = new StatusStore();
  let ready = false;
  let leading = false;

  // The template informers report to every controller keyed by template.
  const listeners: ((key: string) => void)[] = [];
  const templates = new TemplateInformers({ kc, rest, discovery, log, onChange: (k) => listeners.forEach((l) => l(k)) });
  const outcomes = new ScheduleOutcomes();
  const bindingCtl = new BindingController({ caches, templates, rest, outcomes, log });
  const workCache = new WorkCache({ caches, templates, works, log });
  const identity = opts.leaderElection?.identity ?? `replica-${process.pid}`;
  const events = new EventRecorder({ rest, log: log.child({ component: "events" }) });
  const statusCtl: StatusController = new StatusController({
    caches,
    templates,
    works,
    statuses,
    outcomes,
    rest,
    log,
    identity,
    isLeader: () => leading,
    heardHere: (c) => hub.session(c) !== undefined || clusterCtl.heardHere(c),
    events,
  });
  const isKnownWork = (cluster: string, key: string): boolean => {
    if (works.get(cluster, key) !== undefined || statuses.get(key).has(cluster)) return true;
    try {
      return caches.bindingOf(parseWorkKey(key)) !== undefined;
    } catch {
      return false;
    }
  };
  const registrar =
    opts.registration === undefined
      ? undefined
      : new Registrar({
          rest,
          ca: { certPem: opts.tls.caPem, keyPem: opts.registration.caKeyPem },
          tokenNamespace: opts.registration.tokenNamespace,
          certValidityMs: opts.registration.certValidityMs,
          clusterNamed: (n) => caches.clusters.get(n),
          log: log.child({ component: "registration" }),
        });
  const hub: Hub = new Hub({
    works,
    log,
    clusterNamed: (c) => caches.clusters.get(c),
    registrar,
    events: {
      status: (cluster, s) => {
        // Only reports about Works that exist (or existed) for this cluster are kept, so a
        // misbehaving agent cannot grow the hub's memory with made-up keys.
        if (!isKnownWork(cluster, s.workKey)) {
          log.debug({ cluster, work: s.workKey }, "ignoring a status for a Work this cluster does not have");
          return;
        }
        if (statuses.set(cluster, s)) statusCtl.reported(s.workKey);
      },
      heartbeat: (cluster, hb) => clusterCtl.heartbeat(cluster, hb),
      preserveOnDelete: (key) => {
        // Only a deleted template's objects stay; a cluster that stops being a target loses them.
        try {
          const ref = parseWorkKey(key);
          const b = caches.bindingOf(ref);
          const t = templates.get(ref);
          return b?.spec.preserveResourcesOnDeletion === true && (t === undefined || t.metadata.deletionTimestamp !== undefined);
        } catch {
          return false;
        }
      },
      connected: (cluster) => {
        clusterCtl.controller.enqueue(cluster);
        statusCtl.clusterChanged(cluster);
      },
    },
  });
  const clusterCtl = new ClusterController({
    getCluster: (n) => caches.clusters.get(n),
    rest,
    log,
    thresholds: { failureMs: opts.clusterFailureMs, successMs: opts.clusterSuccessMs },
    statusUpdateMs: opts.clusterStatusUpdateMs,
    onReadyChanged: (c) => statusCtl.clusterChanged(c),
    isLeader: () => leading,
    connectedHere: (c) => hub.session(c) !== undefined,
  });
  outcomes.onChange((k) => statusCtl.reported(k));
  listeners.push((k) => bindingCtl.templateChanged(k), (k) => workCache.templateChanged(k), (k) => statusCtl.reported(k));
  const unjoinCtl = new UnjoinController({ clusterNamed: (n) => caches.clusters.get(n), bindings: () => caches.allBindings(), rest, log });
  const clusterEvent = (c: { metadata: { name?: string } }) => {
    clusterCtl.controller.enqueue(c.metadata.name ?? "");
    unjoinCtl.controller.enqueue(c.metadata.name ?? "");
  };
  caches.clusters.on({ add: clusterEvent, update: clusterEvent, delete: (c) => {
    clusterEvent(c);
    // Unjoined: its certificate is worth nothing now.
    hub.disconnect(c.metadata.name ?? "", `cluster ${c.metadata.name} was unjoined`);
  } });

  // Which kinds to watch follows the policies and bindings; one key, so bursts coalesce.
  const wantedKinds = (): KindRef[] => {
    const kinds = new Map<string, KindRef>();
    for (const p of caches.allPolicies()) for (const s of p.spec.resourceSelectors ?? []) kinds.set(`${s.apiVersion}|${s.kind}`, s);
    for (const b of caches.allBindings()) kinds.set(`${b.spec.resource.apiVersion}|${b.spec.resource.kind}`, b.spec.resource);
    // propagateDeps: what workloads refer to must be watched even when no policy selects it.
    if (caches.allPolicies().some((p) => p.spec.propagateDeps === true)) for (const k of DEPENDENCY_KINDS) kinds.set(`v1|${k}`, { apiVersion: "v1", kind: k });
    return [...kinds.values()];
  };
  const kindsCtl = new Controller({
    name: "template-kinds",
    workers: 1,
    log,
    reconcile: async () => {
      const kinds = wantedKinds();
      await templates.ensure(kinds);
      bindingCtl.enqueueAll(kinds);
      const missing = templates.unresolvedKinds();
      if (missing.length > 0) {
        log.warn({ kinds: missing }, "policies select kinds the control cluster does not serve; retrying");
        return { requeueAfterMs: 5000 };
      }
      return undefined;
    },
  });
  const kindsChanged = () => kindsCtl.enqueue("kinds");
  for (const inf of [caches.policies, caches.clusterPolicies, caches.bindings, caches.clusterBindings]) {
    inf.on({ add: kindsChanged, update: kindsChanged, delete: kindsChanged });
  }

  await caches.start();
  await templates.ensure(wantedKinds());
  workCache.computeAll();
  works.markSynced();
  log.info({ bindings: caches.allBindings().length, clusters: works.clusters().length }, "caches synced; works computed");

  // Every replica computes Works, watches kinds and judges the clusters streaming to it; the
  // leader alone writes bindings and their status, and judges clusters no replica hears from.
  for (const c of [kindsCtl, workCache.controller, clusterCtl.controller, statusCtl.controller]) c.start();
  kindsChanged();
  const leaderControllers = [bindingCtl.controller, unjoinCtl.controller];
  const startLeading = () => {
    leading = true;
    for (const c of leaderControllers) c.start();
    bindingCtl.enqueueAll(wantedKinds());
    for (const c of caches.clusters.list()) {
      clusterCtl.controller.enqueue(c.metadata.name ?? "");
      unjoinCtl.controller.enqueue(c.metadata.name ?? "");
    }
    for (const b of caches.allBindings()) statusCtl.reported(templateKeyOfBinding(b));
  };
  const elector =
    opts.leaderElection === undefined
      ? undefined
      : new LeaderElector({
          rest,
          name: "flotilla-control-plane",
          ...opts.leaderElection,
          log,
          onStartedLeading: startLeading,
          onStoppedLeading: () => {
            leading = false;
            opts.onLostLeadership?.();
          },
        });
  if (elector === undefined) startLeading();
  else await elector.start();

  const server = new Server({ "grpc.keepalive_time_ms": 30_000, "grpc.keepalive_timeout_ms": 10_000, "grpc.max_receive_message_length": 16 * 1024 * 1024 });
  server.addService(AgentHubService, hub.service());
  const admin = new Admin({
    caches,
    works,
    statuses,
    rest,
    connected: (c) => hub.session(c) !== undefined,
    liveObjects: (c, resources) => hub.session(c)?.requestLive(resources),
    tokenNamespace: opts.registration?.tokenNamespace,
    waitingOn: (c) => unjoinCtl.waitingOn(c),
    log: log.child({ component: "admin" }),
  });
  server.addService(AdminService, admin.service());
  const creds = ServerCredentials.createSsl(Buffer.from(opts.tls.caPem), [{ cert_chain: Buffer.from(opts.tls.certPem), private_key: Buffer.from(opts.tls.keyPem) }], true);
  const grpcPort = await new Promise<number>((resolve, reject) => server.bindAsync(opts.grpcListen, creds, (err, port) => (err ? reject(err) : resolve(port))));
  // Registration has its own listener: a new member has no client certificate yet, and the hub's
  // listener requires one. Server-authenticated TLS; the bootstrap token authenticates the caller.
  let registrationServer: Server | undefined;
  let registrationPort: number | undefined;
  if (registrar !== undefined && opts.registration !== undefined && opts.registration.listen !== "") {
    registrationServer = new Server({ "grpc.max_receive_message_length": 64 * 1024 });
    registrationServer.addService(RegistrationService, {
      register: unaryHandler<RegisterRequest, RegisterResponse>((call) => registrar.register(call.request), (err) => log.warn({ err: (err as Error).message }, "registration failed")),
    });
    const serverOnly = ServerCredentials.createSsl(null, [{ cert_chain: Buffer.from(opts.tls.certPem), private_key: Buffer.from(opts.tls.keyPem) }], false);
    const listen = opts.registration.listen;
    registrationPort = await new Promise<number>((resolve, reject) => (registrationServer as Server).bindAsync(listen, serverOnly, (err, port) => (err ? reject(err) : resolve(port))));
    log.info({ registrationPort }, "registration listening");
  }
  ready = true;
  log.info({ grpcPort }, "agent hub listening");

  gaugeOf("flotilla_leader", "1 while this replica leads.", () => (leading ? 1 : 0));
  gaugeOf("flotilla_connected_agents", "Agents streaming to this replica.", () => hub.connectedClusters().length);
  gaugeOf("flotilla_works", "Works the hub holds per cluster.", () => works.clusters().map((c) => [{ cluster: c }, works.keys(c).length] as const), ["cluster"]);
  counterOf("flotilla_binding_status_writes_total", "ResourceBinding status writes.", () => statusCtl.writes.bindingStatus);
  counterOf("flotilla_events_dropped_total", "Warning Events not written: over the rate limit (a burst of 100, then 10/s).", () => events.dropped);
  counterOf("flotilla_template_status_writes_total", "Template status writes.", () => statusCtl.writes.templateStatus);
  const sessionStat = (stat: "upserts" | "manifestBytes") => () => hub.connectedClusters().map((c) => [{ cluster: c }, hub.session(c)?.stats[stat] ?? 0] as const);
  counterOf("flotilla_stream_upserts_total", "WorkUpserts sent on the cluster's current stream.", sessionStat("upserts"), ["cluster"]);
  counterOf("flotilla_stream_manifest_bytes_total", "Manifest bytes sent on the cluster's current stream.", sessionStat("manifestBytes"), ["cluster"]);
  const health = opts.healthListen === "" ? undefined : await startHealthServer(opts.healthListen, () => ready);
  const healthPort = health?.port;

  return {
    grpcPort,
    registrationPort,
    healthPort,
    hub,
    works,
    isLeader: () => leading,
    status: statusCtl,
    stop: async () => {
      ready = false;
      await elector?.stop();
      hub.closeAll();
      await Promise.all([server, registrationServer].map((s) => (s === undefined ? undefined : shutdownServer(s))));
      await Promise.all([kindsCtl, workCache.controller, clusterCtl.controller, statusCtl.controller, ...leaderControllers].map((c) => c.stop()));
      templates.stop();
      caches.stop();
      rest.close();
      await health?.close();
    },
  };
}
