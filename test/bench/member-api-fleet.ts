// A fleet with the member API on (issue 41), for bench:member-api and the member API fuzz test:
// test-env clusters and Flotilla with --member-api-address, Flotilla's groups bound in every
// member (flotilla:admins → cluster-admin, flotilla:viewers → a reader of pods, events and
// Secrets: the control plane and the agent still refuse a viewer Secrets), and endpoints for raw
// HTTPS: a member through the control plane with a caller's certificate, or the member's
// apiserver itself.
import { readFile } from "node:fs/promises";
import type { RequestOptions } from "node:https";
import { join } from "node:path";
import { KubeRest } from "../../shared/kube-rest.ts";
import { impersonatedUser, MEMBER_API_GROUPS } from "../../shared/member-api.ts";
import { type AdminRole, issueAdminCertificate } from "../../shared/pki.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { freePort } from "../env/free-port.ts";
import { type Endpoint, endpoint } from "./member-api-http.ts";

export interface MemberApiFleetOptions {
  members?: number;
  nodesPerMember?: number;
  /** --member-api-max-requests-per-cluster and the agents' --member-api-max-requests (both default 64). */
  maxRequests?: number;
  logLevel?: string;
  auditMembers?: boolean;
  controlPlaneArgs?: string[];
}

export interface MemberApiFleet {
  fleet: Fleet;
  flotilla: Flotilla;
  /** The member API's port on 127.0.0.1. */
  port: number;
  /** A member through the control plane, as `user` with a certificate of `role` (`path` overrides /clusters/<cluster>). */
  proxy(user: string, role: AdminRole, cluster?: string, base?: string): Promise<Endpoint>;
  /** The member's apiserver itself, with its admin credentials; `as` adds the Impersonate-* headers the agent would send for that admin. */
  direct(cluster: string, as?: string): Promise<Endpoint>;
  /** A REST client for a cluster ("control" or a member's name) with its admin credentials. */
  rest(cluster: string): KubeRest;
  stop(): Promise<void>;
}

const post = (rest: KubeRest, path: string, body: unknown) => rest.request("POST", path, { body });

/** Starts the fleet and Flotilla with the member API on; everything started is stopped when it fails. */
export async function startMemberApiFleet(o: MemberApiFleetOptions = {}): Promise<MemberApiFleet> {
  const fleet = await startFleet({ members: o.members ?? 2, nodesPerMember: o.nodesPerMember, auditMembers: o.auditMembers });
  const rests: KubeRest[] = [];
  const endpoints: Endpoint[] = [];
  let flotilla: Flotilla | undefined;
  const stop = async () => {
    for (const r of rests) r.close();
    for (const e of endpoints) e.agent.destroy();
    await flotilla?.stop();
    await fleet.stop();
  };
  try {
    const port = await freePort();
    const limit = o.maxRequests === undefined ? [] : [o.maxRequests];
    flotilla = await startFlotilla(fleet, {
      logLevel: o.logLevel ?? "warn",
      controlPlaneArgs: [`--member-api-address=127.0.0.1:${port}`, ...limit.map((n) => `--member-api-max-requests-per-cluster=${n}`), ...(o.controlPlaneArgs ?? [])],
      agentArgs: limit.map((n) => `--member-api-max-requests=${n}`),
    });
    const f = flotilla;
    const clusters = new Map<string, Cluster>([["control", fleet.control], ...fleet.members.map((m) => [m.name, m] as [string, Cluster])]);
    const rest = (name: string) => {
      const c = clusters.get(name);
      if (c === undefined) throw new Error(`no cluster ${name}`);
      const r = new KubeRest(c.kubeConfig(), { maxSockets: 16 });
      rests.push(r);
      return r;
    };
    const rbac = "/apis/rbac.authorization.k8s.io/v1";
    for (const m of fleet.members) {
      const r = rest(m.name);
      await post(r, `${rbac}/clusterroles`, { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "fleet-reader" }, rules: [{ apiGroups: ["", "apps"], resources: ["pods", "pods/log", "events", "namespaces", "secrets", "configmaps", "deployments"], verbs: ["get", "list", "watch"] }] });
      for (const [group, role] of [[MEMBER_API_GROUPS.viewer, "fleet-reader"], [MEMBER_API_GROUPS.admin, "cluster-admin"]] as const) {
        await post(r, `${rbac}/clusterrolebindings`, { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name: group.replace(":", "-") }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role }, subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: group }] });
      }
    }
    const ca = await readFile(join(f.certsDir, "ca.crt"), "utf8");
    const caKey = await readFile(join(f.certsDir, "ca.key"), "utf8");
    const track = (e: Endpoint) => (endpoints.push(e), e);
    return {
      fleet,
      flotilla: f,
      port,
      proxy: async (user, role, cluster = "member1", base = `/clusters/${cluster}`) => {
        const cert = await issueAdminCertificate({ certPem: ca, keyPem: caKey }, user, 3_600_000, role);
        return track(endpoint({ name: `${user} through the member API`, host: "127.0.0.1", port, base, tls: { ca, cert: cert.certPem, key: cert.keyPem, servername: "localhost" }, headers: {} }));
      },
      direct: async (name, as) => {
        const c = clusters.get(name) as Cluster;
        const opts: RequestOptions = {};
        await c.kubeConfig().applyToHTTPSOptions(opts);
        const server = new URL(c.server);
        const headers: Record<string, string> = as === undefined ? {} : { "impersonate-user": impersonatedUser("admin", as), "impersonate-group": MEMBER_API_GROUPS.admin };
        return track(endpoint({ name: `${name}'s apiserver`, host: server.hostname, port: Number(server.port), base: "", tls: { ca: String(opts.ca), cert: String(opts.cert), key: String(opts.key) }, headers }));
      },
      rest,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
