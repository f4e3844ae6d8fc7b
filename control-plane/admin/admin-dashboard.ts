// The Admin API's CreateDashboardLogin (issue 24): a one-time link that signs a browser in to the
// web dashboard as the calling certificate's user and role. The dashboard part mints it; this
// turns the caller's certificate into the identity the link carries.
import { status as GrpcStatus } from "@grpc/grpc-js";
import type { CreateDashboardLoginResponse } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import { adminOfSubject, type AdminRole } from "../../shared/pki.ts";
import { RpcError } from "../rpc.ts";

/** The client certificate of a call, as Node's PeerCertificate gives it. */
export interface CallerCert {
  subject?: { CN?: string | string[]; O?: string | string[] };
  fingerprint256?: string;
  serialNumber?: string;
}

export type DashboardLink = (who: { user: string; role: AdminRole; fingerprint256: string; serialNumber: string }) => { url: string; expiresAt: Date };

export function dashboardLogin(link: DashboardLink | undefined, caller: CallerCert): CreateDashboardLoginResponse {
  if (link === undefined) throw new RpcError(GrpcStatus.FAILED_PRECONDITION, "this control plane serves no dashboard: start it with --dashboard-address");
  const who = adminOfSubject(caller.subject);
  // The access check let the call through, so this is an admin's or a viewer's certificate.
  if (who === undefined) throw new RpcError(GrpcStatus.PERMISSION_DENIED, "a dashboard login needs an admin or viewer certificate");
  const { url, expiresAt } = link({ ...who, fingerprint256: caller.fingerprint256 ?? "", serialNumber: caller.serialNumber ?? "" });
  return { url, expiresAt: expiresAt.toISOString() };
}
