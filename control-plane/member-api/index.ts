// The member API part (issue 41, DESIGN §14): every replica serves /clusters/<name>/ for the agents
// that stream to it (--member-api-address; off by default), and says where it is reached
// (--member-api-url) to flotillactl and the ClusterProfiles.
import { RevocationFile } from "../admin/revocation-file.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import type { Hub } from "../hub/hub.ts";
import { listenUrl, splitHostPort } from "../../shared/listen-address.ts";
import { startMemberApiServer } from "./member-api-server.ts";

export interface MemberApiPart extends Part {
  port(): number | undefined;
  /** https://host:port where callers reach it, once it listens; undefined when it is off. */
  url(): string | undefined;
}

export function startMemberApi(ctx: ControlPlaneContext, links: { hub: Hub }): MemberApiPart {
  const opts = ctx.opts.memberApi;
  if (opts === undefined) return { port: () => undefined, url: () => undefined };
  const log = ctx.log.child({ component: "member-api" });
  const revocations = new RevocationFile({ path: ctx.opts.adminRevocationList, log });
  let server: Awaited<ReturnType<typeof startMemberApiServer>> | undefined;
  return {
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
        log,
      });
      log.info({ port: server.port }, "member API listening");
    },
    stop: async () => {
      await server?.close();
    },
  };
}
