// The admin part: the Admin API that flotillactl talks to, on the mTLS listener.
import { AdminService } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import type { Hub } from "../hub/hub.ts";
import { explain } from "../explain/index.ts";
import { Admin } from "./admin.ts";
import type { DashboardLink } from "./admin-dashboard.ts";
import { RevocationFile } from "./revocation-file.ts";
import { secretDigestKey } from "./secret-digest.ts";

export function startAdmin(ctx: ControlPlaneContext, links: { hub: Hub; waitingOn: (cluster: string) => number; dashboardLink?: DashboardLink; memberApiUrl?: () => string | undefined }): Part {
  const { hub } = links;
  const log = ctx.log.child({ component: "admin" });
  const revocations = new RevocationFile({ path: ctx.opts.adminRevocationList, log });
  const admin = new Admin({
    caches: ctx.caches,
    works: ctx.works,
    statuses: ctx.statuses,
    rest: ctx.rest,
    connected: (c) => hub.session(c) !== undefined,
    liveObjects: (c, resources) => hub.session(c)?.requests.requestLive(resources),
    tokenNamespace: ctx.opts.registration?.tokenNamespace,
    waitingOn: links.waitingOn,
    requireAcceptance: ctx.opts.requireAcceptance,
    digestKey: secretDigestKey(ctx.opts.tls.keyPem),
    interpreters: ctx.interpreters,
    revocations,
    explain: async (req) => {
      // An empty kind or name is refused by the resolver, as for every Admin call.
      const t = req.template ?? { apiVersion: "", kind: "", namespace: "", name: "" };
      const ref = { ...(t.apiVersion ? { apiVersion: t.apiVersion } : {}), kind: t.kind, ...(t.namespace ? { namespace: t.namespace } : {}), name: t.name };
      const r = await explain(ctx, ref, req.cluster ? { cluster: req.cluster } : {});
      return { text: r.text, explanationJson: JSON.stringify(r.explanation) };
    },
    ...(links.dashboardLink === undefined ? {} : { dashboardLink: links.dashboardLink }),
    memberApiUrl: () => links.memberApiUrl?.() ?? "",
    log,
  });
  return {
    // Read at start, so that a bad list is in the log before anyone calls.
    synced: async () => void (await revocations.current()),
    services: [{ definition: AdminService, implementation: admin.service() }],
  };
}
