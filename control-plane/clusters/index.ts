// The clusters part: cluster health from heartbeats, unjoin, and the registration listener where
// new members trade a bootstrap token for a certificate.
import { Server, ServerCredentials } from "@grpc/grpc-js";
import type { Cluster } from "../../shared/api/types.ts";
import { type RegisterRequest, type RegisterResponse, RegistrationService } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import type { Hub } from "../hub/hub.ts";
import { shutdownServer, unaryHandler } from "../rpc.ts";
import { ClusterController } from "./cluster-controller.ts";
import { clusterLeaseDurationSeconds, judgeLease } from "./cluster-lease.ts";
import { knownReplicas } from "../hub/fair-share.ts";
import { type ClusterLease, ClusterLeases } from "./cluster-leases.ts";
import { UnjoinController } from "./unjoin-controller.ts";

export interface ClustersPart extends Part {
  /** Whether this replica judged the cluster last (it streamed here, and nobody else since). */
  heardHere(cluster: string): boolean;
  /** Bindings still waiting for a leaving cluster's agent to remove its objects. */
  waitingOn(cluster: string): number;
  /** The clusters' Leases as cached (who holds each agent's stream, and where it serves the other replicas). */
  leases(): ClusterLease[];
  lease(cluster: string): ClusterLease | undefined;
  /** The registration listener's port, once serving; undefined when registration is off. */
  registrationPort(): number | undefined;
}

export function startClusters(ctx: ControlPlaneContext, hub: Hub): ClustersPart {
  const { opts, caches, rest, log, events } = ctx;
  const memberApiAddress = peerMemberApiAddress(opts.peerAddress, opts.memberApi?.listen);
  const leases = new ClusterLeases({ kc: opts.kc, rest, namespace: opts.clusterLeaseNamespace, log, ...(opts.peerAddress === undefined ? {} : { holderAddress: opts.peerAddress }), ...(memberApiAddress === undefined ? {} : { holderMemberApiAddress: memberApiAddress }) });
  const clusterCtl = new ClusterController({
    getCluster: (n) => caches.clusters.get(n),
    rest,
    log,
    leases,
    identity: ctx.identity,
    leaseRenewMs: opts.clusterLeaseRenewMs,
    leaseDurationSeconds: clusterLeaseDurationSeconds(opts.clusterLeaseRenewMs, opts.clusterFailureMs),
    thresholds: { failureMs: opts.clusterFailureMs, successMs: opts.clusterSuccessMs },
    statusReportMs: opts.clusterStatusUpdateMs,
    onReadyChanged: (c) => events.emit("clusterReadyChanged", c),
    isLeader: ctx.isLeader,
    connectedHere: (c) => hub.session(c) !== undefined,
    startupGraceMs: opts.clusterStartupGraceMs,
    admissionBacklogMs: () => hub.admissionBacklogMs(),
    requireAcceptance: opts.requireAcceptance,
    missingFeatures: (c) => hub.session(c)?.deletions.missingFeatures(),
  });
  // The replicas the hub shares the fleet with (fair-share.ts): holders of live cluster Leases, counted at most once every 5 s.
  let replicas = { at: 0, n: 1 };
  hub.replicaCount = () => {
    const now = Date.now();
    if (now - replicas.at < 5000) return replicas.n;
    const holders = leases.list().flatMap((l) => (judgeLease(l.spec, now).kind === "held" ? [l.spec?.holderIdentity ?? ""] : []));
    replicas = { at: now, n: knownReplicas(holders, ctx.identity) };
    return replicas.n;
  };
  const unjoinCtl = new UnjoinController({ clusterNamed: (n) => caches.clusters.get(n), reportingCount: (n) => caches.bindingIndex.reportingCount(n), rest, log });
  events.on("heartbeat", (cluster, hb, problems) => clusterCtl.heartbeat(cluster, hb, problems));
  events.on("agentStreamChanged", (cluster) => clusterCtl.controller.enqueue(cluster));
  // A lease renewed or taken over elsewhere: the leader's judgment and this replica's ownership follow.
  leases.onChange((cluster) => clusterCtl.controller.enqueue(cluster));
  const clusterEvent = (c: Cluster) => {
    clusterCtl.controller.enqueue(c.metadata.name ?? "");
    unjoinCtl.controller.enqueue(c.metadata.name ?? "");
  };
  caches.clusters.on({
    add: clusterEvent,
    update: clusterEvent,
    delete: (c) => {
      clusterEvent(c);
      // Unjoined: its certificate is worth nothing now.
      hub.disconnect(c.metadata.name ?? "", `cluster ${c.metadata.name} was unjoined`);
    },
  });

  let registration: { server: Server; port: number } | undefined;
  return {
    heardHere: (c) => clusterCtl.heardHere(c),
    waitingOn: (c) => unjoinCtl.waitingOn(c),
    leases: () => leases.list(),
    lease: (c) => leases.get(c),
    registrationPort: () => registration?.port,
    // The leases are synced before the cluster controller judges anything by them.
    synced: () => leases.start(),
    controllers: [clusterCtl.controller],
    leaderControllers: [unjoinCtl.controller],
    startedLeading: () => {
      clusterCtl.startedLeading();
      for (const c of caches.clusters.list()) clusterEvent(c);
    },
    serve: async () => {
      const { registrar } = ctx;
      if (registrar === undefined || opts.registration === undefined || opts.registration.listen === "") return;
      // Its own listener: a new member has no client certificate yet, and the hub's listener
      // requires one. Server-authenticated TLS; the bootstrap token authenticates the caller.
      const server = new Server({ "grpc.max_receive_message_length": 64 * 1024 });
      server.addService(RegistrationService, {
        register: unaryHandler<RegisterRequest, RegisterResponse>((call) => registrar.register(call.request), (err) => log.warn({ err: (err as Error).message }, "registration failed")),
      });
      const serverOnly = ServerCredentials.createSsl(null, [{ cert_chain: Buffer.from(opts.tls.certPem), private_key: Buffer.from(opts.tls.keyPem) }], false);
      const listen = opts.registration.listen;
      const port = await new Promise<number>((resolve, reject) => server.bindAsync(listen, serverOnly, (err, p) => (err ? reject(err) : resolve(p))));
      registration = { server, port };
      log.info({ registrationPort: port }, "registration listening");
    },
    stop: async () => {
      leases.stop();
      if (registration !== undefined) await shutdownServer(registration.server);
    },
  };
}

/**
 * Where the other replicas reach this one's member API (issue 41): the peer address's host with
 * the member API's port; undefined without either, or on a port picked at random (0).
 */
export function peerMemberApiAddress(peerAddress: string | undefined, memberApiListen: string | undefined): string | undefined {
  if (peerAddress === undefined || memberApiListen === undefined) return undefined;
  const port = Number(memberApiListen.slice(memberApiListen.lastIndexOf(":") + 1));
  const i = peerAddress.lastIndexOf(":");
  if (!Number.isInteger(port) || port <= 0 || i < 0) return undefined;
  return `${peerAddress.slice(0, i)}:${port}`;
}
