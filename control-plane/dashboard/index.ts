// The dashboard part (issue 24): a read-only web page served by every replica from the caches it
// already holds (--dashboard-address; off by default). Live views, the login exchange, explain;
// with the member API on, pods, events and logs read inside members as the signed-in user (issue 41).
import { status as GrpcStatus } from "@grpc/grpc-js";
import type { ResourceBinding } from "../../shared/api/types.ts";
import type { Informer } from "../../shared/informer.ts";
import { workKey } from "../../shared/work-key.ts";
import { RevocationFile } from "../admin/revocation-file.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { RpcError } from "../rpc.ts";
import { DashboardError, startDashboardServer } from "./dashboard-server.ts";
import { listenUrl } from "../../shared/listen-address.ts";
import type { DashboardLink } from "../admin/admin-dashboard.ts";
import { dashboardTokenKey, LOGIN_TOKEN_TTL_MS, signToken, UsedLogins } from "./dashboard-tokens.ts";
import { startWarningEvents } from "./warning-events.ts";
import { clusterWorkloads, overview, templateRows, type WarningEvent } from "./fleet-views.ts";
import { LiveViews } from "./live-views.ts";
import type { CarryMember } from "../member-api/member-api-exchange.ts";
import { MemberReads } from "./member-reads.ts";
import { features, topology } from "./template-views.ts";
import { parseViewKey } from "./view-key.ts";

/** Where the build puts the page (scripts/build-dashboard.ts): beside this module, in source and in dist alike. */
export const WEB_DIR = new URL("./web-dist/", import.meta.url);

export interface DashboardLinks {
  /** The same explanation flotillactl explain prints. */
  explain(ref: { apiVersion: string; kind: string; namespace: string; name: string }, cluster: string | undefined): Promise<unknown>;
  /** What carries the dashboard's reads inside members (the member API part's); undefined while the member API is off. */
  carry: CarryMember | undefined;
}

export interface DashboardPart extends Part {
  port(): number | undefined;
  /** Mints a login link for an admin's or viewer's certificate; undefined when the dashboard is off. */
  link: DashboardLink | undefined;
}

export function startDashboard(ctx: ControlPlaneContext, links: DashboardLinks): DashboardPart {
  const opts = ctx.opts.dashboard;
  if (opts === undefined || opts.listen === "") return { port: () => undefined, link: undefined };
  const tokenKey = dashboardTokenKey(ctx.opts.tls.keyPem);
  const log = ctx.log.child({ component: "dashboard" });
  const warnings: Informer<WarningEvent> = startWarningEvents(ctx);
  const compute = (key: string): unknown => {
    const v = parseViewKey(key);
    if ("error" in v) throw new DashboardError(400, v.error);
    const clusters = ctx.caches.clusters.list();
    // Every cluster's entry, also those a large binding's status leaves out (issue 25).
    const complete = (b: ResourceBinding) => ctx.caches.bindingEntries.complete(b);
    const bindings = ctx.caches.allBindings().map(complete);
    switch (v.name) {
      case "overview":
        return overview({ clusters, bindings, events: warnings.list() });
      case "templates":
        return templateRows(bindings, clusters);
      case "clusters":
        return clusterWorkloads({ clusters, bindings });
      case "features":
        return features({ bindings, dnsRecords: [...ctx.caches.serviceDNSRecords.list(), ...ctx.caches.ingressDNSRecords.list()] });
      case "topology": {
        const ref = { ...v.ref, ...(v.ref.namespace === "" ? { namespace: undefined } : {}) };
        const binding = ctx.caches.bindingEntries.complete(ctx.caches.bindingOf(ref));
        const name = `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ""}${ref.name}`;
        if (binding === undefined) throw new DashboardError(404, `${name} has no binding: no propagation policy selects it (see Explain)`);
        const key = workKey(ref);
        return topology({ binding, clusters, workHash: (c) => ctx.works.get(c, key)?.hash });
      }
    }
  };
  const live = new LiveViews({ compute });
  const changed = () => live.changed();
  for (const inf of [ctx.caches.clusters, ctx.caches.bindings, ctx.caches.clusterBindings, ctx.caches.serviceDNSRecords, ctx.caches.ingressDNSRecords, warnings] as Informer<unknown>[]) {
    inf.on({ add: changed, update: changed, delete: changed });
  }
  for (const e of ["templateChanged", "agentStreamChanged", "clusterReadyChanged"] as const) ctx.events.on(e, changed);

  const revocations = new RevocationFile({ path: ctx.opts.adminRevocationList, log });
  let server: Awaited<ReturnType<typeof startDashboardServer>> | undefined;
  return {
    port: () => server?.port,
    link: (who) => {
      if (server === undefined) throw new DashboardError(503, "the dashboard is not listening yet");
      const now = Date.now();
      const token = signToken(tokenKey, who, "login", now, LOGIN_TOKEN_TTL_MS);
      return { url: `${opts.url ?? listenUrl(opts.listen, server.port)}/login?token=${token}`, expiresAt: new Date(now + LOGIN_TOKEN_TTL_MS) };
    },
    synced: async () => void (await revocations.current()),
    serve: async () => {
      server = await startDashboardServer({
        listen: opts.listen,
        tls: ctx.opts.tls,
        tokenKey,
        sessionTtlMs: opts.sessionTtlMs,
        usedLogins: new UsedLogins(),
        webDir: WEB_DIR,
        live,
        view: compute,
        explain: async (q) => {
          const ref = { apiVersion: q.get("apiVersion") ?? "", kind: q.get("kind") ?? "", namespace: q.get("namespace") ?? "", name: q.get("name") ?? "" };
          if (ref.kind === "" || ref.name === "") throw new DashboardError(400, "explain needs the template's kind and name");
          return links.explain(ref, q.get("cluster") || undefined).catch((err: unknown) => {
            // The resolver's refusals (an unknown kind, a missing template) are the caller's to fix.
            if (err instanceof RpcError) throw new DashboardError(err.code === GrpcStatus.NOT_FOUND ? 404 : err.code === GrpcStatus.INVALID_ARGUMENT ? 400 : 500, err.message);
            throw err;
          });
        },
        // Inside members only with the member API on: the operator's choice to serve members' APIs at all.
        member: new MemberReads({ carry: links.carry, known: (c) => ctx.caches.clusters.get(c) !== undefined }),
        revocations: () => revocations.current(),
        log,
      });
      log.info({ port: server.port }, "dashboard listening");
    },
    stop: async () => {
      live.stop();
      warnings.stop();
      await server?.close();
    },
  };
}

export { listenUrl } from "../../shared/listen-address.ts";
