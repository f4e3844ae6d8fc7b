// Assembles the control plane: the shared context, then one line per part (each folder's
// start function), then the order every part follows: sync, controllers, leadership, listeners.
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { startHealthServer } from "../shared/health-server.ts";
import { KubeRest } from "../shared/kube-rest.ts";
import { startInterpreter } from "./interpreter/index.ts";
import { gaugeOf } from "../shared/metrics.ts";
import { startAdmin } from "./admin/index.ts";
import { startClusters } from "./clusters/index.ts";
import { startClusterProfiles } from "./cluster-profiles/index.ts";
import { type ControlPlaneOptions, createContext, type Part } from "./context.ts";
import { installCrds } from "./crd-install/crds.ts";
import { startDashboard } from "./dashboard/index.ts";
import { explain } from "./explain/index.ts";
import { startDetector } from "./detector/index.ts";
import { startDns } from "./dns/index.ts";
import { startHub } from "./hub/index.ts";
import { listenGated } from "./hub/gated-listener.ts";
import { startAutoscaling } from "./autoscaling-controller/index.ts";
import { startRebalancer } from "./rebalancer/index.ts";
import { startTaintPolicy } from "./taint-policy/index.ts";
import { startRollout } from "./rollout-controller/index.ts";
import { LeaderElector } from "./leadership/leader-election.ts";
import { ThreadedLeaderElector } from "./leadership/lease-thread.ts";
import { startPeers } from "./peers/index.ts";
import { shutdownServer } from "./rpc.ts";
import { startStatus } from "./status/index.ts";
import { startWebhook } from "./webhook/index.ts";
import { startWorks } from "./works/index.ts";
import { startQuota } from "./quota/index.ts";
import { startMcs } from "./mcs-controller/index.ts";
import { startMemberApi } from "./member-api/index.ts";

export type { ControlPlaneOptions } from "./context.ts";

export interface RunningControlPlane {
  grpcPort: number;
  /** The registration listener's port, when registration is on. */
  registrationPort: number | undefined;
  healthPort: number | undefined;
  /** The admission webhook's port, when it is on. */
  webhookPort: number | undefined;
  /** The dashboard's port, when it is on. */
  dashboardPort: number | undefined;
  /** The member API's port (issue 41), when it is on. */
  memberApiPort: number | undefined;
  isLeader(): boolean;
  stop(): Promise<void>;
}

/** Starts every part; resolves once caches are synced and the hub accepts agents. */
export async function startControlPlane(opts: ControlPlaneOptions): Promise<RunningControlPlane> {
  const { log } = opts;
  if (opts.installCrds) {
    await installCrds(opts.kc, { log: opts.log });
    log.info("CRDs installed");
  }
  let leading = false;
  let ready = false;
  // Set once the elector exists: a leader past its renew deadline sends no write (leadership/leader-election.ts).
  let writeFence = (): string | undefined => undefined;
  // Set once the elector exists: the leader Lease's holder as last read, the only replica that may follow this one's status reports.
  let leaseHolder = (_now: number): string | undefined => undefined;
  const ctx = createContext(opts, () => leading, () => writeFence());

  // The parts, in the order they sync, start and hear events. A new concern adds one line here.
  const hub = startHub(ctx);
  const clusters = startClusters(ctx, hub.hub);
  // The interpreter's Lua runtime also checks the scripts the webhook is asked about.
  const interpreter = startInterpreter(ctx);
  const webhook = startWebhook(ctx, { checkScript: interpreter.checkScript });
  const memberApi = startMemberApi(ctx, { hub: hub.hub, lease: clusters.lease });
  const dashboard = startDashboard(ctx, { explain: (ref, cluster) => explain(ctx, ref, cluster === undefined ? {} : { cluster }), carry: memberApi.carry });
  const early: Part[] = [hub, clusters, interpreter, startDetector(ctx), startWorks(ctx), startQuota(ctx), startMcs(ctx)];
  // The peers part keeps the status part's records of whose entries the leader writes (issue 42).
  const status = startStatus(ctx, { hub: hub.hub, heardHere: clusters.heardHere });
  const parts: Part[] = [
    ...early,
    status,
    startDns(ctx),
    startAutoscaling(ctx),
    startPeers(ctx, {
      leases: clusters.leases,
      lease: clusters.lease,
      heard: status.heard,
      streamsHere: (c) => hub.hub.session(c) !== undefined,
      leaseHolder: (now) => leaseHolder(now),
      handed: status.handed,
      forwarded: status.forwarded,
    }),
    startRebalancer(ctx),
    startTaintPolicy(ctx),
    startRollout(ctx),
    startAdmin(ctx, { hub: hub.hub, waitingOn: clusters.waitingOn, memberApiUrl: memberApi.url, ...(dashboard.link === undefined ? {} : { dashboardLink: dashboard.link }) }),
    webhook,
    memberApi,
    // After the member API: its serve() settles the URL the profiles point at.
    startClusterProfiles(ctx, { memberApiUrl: memberApi.url }),
    dashboard,
  ];

  await ctx.caches.start();
  for (const p of parts) await p.synced?.();
  log.info({ bindings: ctx.caches.allBindings().length, clusters: ctx.works.clusters().length }, "caches synced; works computed");

  // Every replica computes Works, watches kinds and judges the clusters streaming to it; the
  // leader alone writes bindings and their status, and judges clusters no replica hears from.
  const controllers = parts.flatMap((p) => p.controllers ?? []);
  const leaderControllers = parts.flatMap((p) => p.leaderControllers ?? []);
  for (const c of controllers) c.start();
  const startLeading = () => {
    leading = true;
    for (const c of leaderControllers) c.start();
    for (const p of parts) p.startedLeading?.();
  };
  // The elector's requests get their own connections (as client-go gives leader election its own
  // client): behind a burst of controller writes in the shared pool, a renewal would wait past
  // the renew deadline and the leader would step down and exit while nothing was wrong. By
  // default it also runs in its own thread (leadership/lease-thread.ts), so that a reconnect storm
  // on this event loop cannot delay it either.
  const election = opts.leaderElection;
  const userAgent = `flotilla-control-plane/${ctx.identity}`;
  const onStoppedLeading = () => {
    leading = false;
    opts.onLostLeadership?.();
  };
  const electionRest = election === undefined || election.thread ? undefined : new KubeRest(opts.kc, { maxSockets: 2, userAgent, writeFence: () => writeFence() });
  const elector =
    election === undefined
      ? undefined
      : electionRest === undefined
        ? new ThreadedLeaderElector({ kc: opts.kc, userAgent, election: { name: "flotilla-control-plane", ...election }, log, onStartedLeading: startLeading, onStoppedLeading })
        : new LeaderElector({ rest: electionRest, name: "flotilla-control-plane", ...election, log, onStartedLeading: startLeading, onStoppedLeading });
  if (elector === undefined) startLeading();
  else {
    writeFence = () => elector.writeFence();
    leaseHolder = (now) => elector.observedHolder(now);
    await elector.start();
  }

  // Keepalive pings end the stream of an agent that stopped answering (a partition, a frozen process): it resyncs when it is back.
  const keepalive = opts.grpcKeepalive ?? { intervalMs: 30_000, timeoutMs: 10_000 };
  const server = new Server({ "grpc.keepalive_time_ms": keepalive.intervalMs, "grpc.keepalive_timeout_ms": keepalive.timeoutMs, "grpc.max_receive_message_length": opts.maxReceiveMessageBytes ?? 4 * 1024 * 1024 });
  for (const s of parts.flatMap((p) => p.services ?? [])) server.addService(s.definition, s.implementation);
  const creds = ServerCredentials.createSsl(Buffer.from(opts.tls.caPem), [{ cert_chain: Buffer.from(opts.tls.certPem), private_key: Buffer.from(opts.tls.keyPem) }], true);
  // Issue 42: with admissions limited, a new connection's TLS handshake waits for its admission too.
  const admissions = hub.hub.admissions;
  const gated = admissions.limited && opts.agentAdmissionBeforeTls !== false ? await listenGated({ server, credentials: creds, listen: opts.grpcListen, admissions, log }) : undefined;
  const grpcPort = gated?.port ?? (await new Promise<number>((resolve, reject) => server.bindAsync(opts.grpcListen, creds, (err, port) => (err ? reject(err) : resolve(port)))));
  for (const p of parts) await p.serve?.();
  ready = true;
  log.info({ grpcPort }, "agent hub listening");

  gaugeOf("flotilla_leader", "1 while this replica leads.", () => (leading ? 1 : 0));
  const health = opts.healthListen === "" ? undefined : await startHealthServer(opts.healthListen, () => ready);

  return {
    grpcPort,
    registrationPort: clusters.registrationPort(),
    healthPort: health?.port,
    webhookPort: webhook.port(),
    dashboardPort: dashboard.port(),
    memberApiPort: memberApi.port(),
    isLeader: () => leading,
    stop: async () => {
      ready = false;
      await elector?.stop();
      // Parts stop first (the hub ends its streams), so the listener has no call left to wait for.
      gated?.close();
      await Promise.all([...parts.map((p) => p.stop?.()), shutdownServer(server)]);
      await Promise.all([...controllers, ...leaderControllers].map((c) => c.stop()));
      // Informers stop last: a reconcile still running must never read an emptied cache.
      ctx.templates.stop();
      ctx.caches.stop();
      ctx.rest.close();
      electionRest?.close();
      await health?.close();
    },
  };
}
