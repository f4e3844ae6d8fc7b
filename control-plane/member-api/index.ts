// The member API part (issue 41, DESIGN §14): every replica serves /clusters/<name>/ for the agents
// that stream to it (--member-api-address; off by default), and says where it is reached
// (--member-api-url) to flotillactl and the ClusterProfiles.
import { RevocationFile } from "../admin/revocation-file.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import type { Hub } from "../hub/hub.ts";
import { type ClusterLease, HOLDER_MEMBER_API_ANNOTATION } from "../clusters/cluster-leases.ts";
import { issueReplicaCertificate, type KeyPair } from "../../shared/pki.ts";
import { listenUrl, splitHostPort } from "../../shared/listen-address.ts";
import { type CarryMember, exchange } from "./member-api-exchange.ts";
import { forward } from "./member-api-forward.ts";
import { startMemberApiServer } from "./member-api-server.ts";

export interface MemberApiPart extends Part {
  port(): number | undefined;
  /** https://host:port where callers reach it, once it listens; undefined when it is off. */
  url(): string | undefined;
  /** Carries a call of this process's own (the dashboard's reads) as a caller's would be; undefined when the member API is off. */
  carry: CarryMember | undefined;
}

/** A replica's certificate for forwarding lasts this long, and is signed again after half of it. */
const REPLICA_CERT_VALIDITY_MS = 24 * 3_600_000;

export function startMemberApi(ctx: ControlPlaneContext, links: { hub: Hub; lease: (cluster: string) => ClusterLease | undefined }): MemberApiPart {
  const opts = ctx.opts.memberApi;
  if (opts === undefined) return { port: () => undefined, url: () => undefined, carry: undefined };
  const log = ctx.log.child({ component: "member-api" });
  const revocations = new RevocationFile({ path: ctx.opts.adminRevocationList, log });
  let server: Awaited<ReturnType<typeof startMemberApiServer>> | undefined;
  const caKeyPem = ctx.opts.registration?.caKeyPem;
  let replicaCert: { at: number; pair: Promise<KeyPair> } | undefined;
  // A cluster whose agent streams to another replica: its request goes there (the Lease says where).
  const forwardTo = (cluster: string) => {
    const lease = links.lease(cluster);
    const holder = lease?.spec?.holderIdentity;
    if (holder === undefined || holder === ctx.identity) return undefined;
    // An expired Lease's holder no longer hears the agent (or is gone): nothing to forward to.
    const renewed = Date.parse(lease?.spec?.renewTime ?? "");
    if (!(renewed + (lease?.spec?.leaseDurationSeconds ?? 0) * 1000 > Date.now())) return undefined;
    return lease?.metadata.annotations?.[HOLDER_MEMBER_API_ANNOTATION];
  };
  const replicaCertificate = async () => {
    if (caKeyPem === undefined) return undefined;
    if (replicaCert === undefined || Date.now() - replicaCert.at > REPLICA_CERT_VALIDITY_MS / 2) {
      replicaCert = { at: Date.now(), pair: issueReplicaCertificate({ certPem: ctx.opts.tls.caPem, keyPem: caKeyPem }, ctx.identity, REPLICA_CERT_VALIDITY_MS) };
    }
    return replicaCert.pair;
  };
  const carry: CarryMember = async (cluster, call, out, headTimeoutMs) => {
    const requests = links.hub.session(cluster)?.requests;
    if (requests !== undefined) return exchange(requests, call, out, headTimeoutMs, cluster);
    const elsewhere = forwardTo(cluster);
    const cert = elsewhere === undefined ? undefined : await replicaCertificate();
    if (elsewhere === undefined || cert === undefined) return undefined;
    const { method, path, headers, body, user, role } = call;
    return forward({ address: elsewhere, caPem: ctx.opts.tls.caPem, cert, method, url: `/clusters/${cluster}${path}`, headers, body, caller: { user, role }, out, headTimeoutMs });
  };
  return {
    carry,
    port: () => server?.port,
    url: () => (server === undefined ? undefined : (opts.url ?? listenUrl(opts.listen, server.port))),
    synced: async () => void (await revocations.current()),
    serve: async () => {
      server = await startMemberApiServer({
        listen: splitHostPort(opts.listen, "--member-api-address"),
        tls: ctx.opts.tls,
        revocations: () => revocations.current(),
        known: (cluster) => ctx.caches.clusters.get(cluster) !== undefined,
        requests: (cluster) => links.hub.session(cluster)?.requests,
        headTimeoutMs: opts.headTimeoutMs ?? 30_000,
        forwardTo,
        replicaCert: replicaCertificate,
        log,
      });
      log.info({ port: server.port }, "member API listening");
    },
    stop: async () => {
      await server?.close();
    },
  };
}
