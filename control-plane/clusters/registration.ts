// Registration and renewal of agent certificates (DESIGN §7). A new member presents a bootstrap
// token and a CSR: the control plane creates its Cluster (with the cleanup finalizer `unjoin`
// waits on) and signs a client certificate bound to that Cluster's uid, so a certificate of an
// unjoined cluster never works again, even for a later cluster of the same name. A registered
// agent renews with its current certificate.
import { createHash } from "node:crypto";
import { status as GrpcStatus } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { RESOURCES, SECRETS } from "../../shared/api/resources.ts";
import type { Cluster } from "../../shared/api/types.ts";
import { API_VERSION } from "../../shared/api/types.ts";
import type { RegisterRequest, RegisterResponse } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { collectionPath, isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { type KeyPair, signAgentCsr, verifyCsr } from "../../shared/pki.ts";
import { checkToken, parseToken, TOKEN_SECRET_PREFIX } from "./bootstrap-token.ts";
import { decideRegistrationRetry, REGISTERED_KEY, REGISTERED_WITH_TOKEN } from "./registration-retry.ts";
import { RpcError } from "../rpc.ts";

/** Holds a registered Cluster until its agent has removed what Flotilla applied (or --force). */
export const CLUSTER_FINALIZER = "flotilla.dev/cluster-cleanup";
const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export class Registrar {
  private readonly rest: KubeRest;
  private readonly ca: KeyPair;
  private readonly tokenNamespace: string;
  private readonly validityMs: number;
  private readonly clusterNamed: (name: string) => Cluster | undefined;
  private readonly log: Logger;

  constructor(opts: { rest: KubeRest; ca: KeyPair; tokenNamespace: string; certValidityMs: number; clusterNamed: (name: string) => Cluster | undefined; log: Logger }) {
    this.rest = opts.rest;
    this.ca = opts.ca;
    this.tokenNamespace = opts.tokenNamespace;
    this.validityMs = opts.certValidityMs;
    this.clusterNamed = opts.clusterNamed;
    this.log = opts.log;
  }

  /** Creates the Cluster and signs its agent's certificate; refuses with a status and a message. */
  async register(req: RegisterRequest): Promise<RegisterResponse> {
    const token = parseToken(req.bootstrapToken);
    if ("error" in token) throw new RpcError(GrpcStatus.UNAUTHENTICATED, token.error);
    const stored = await this.rest.get<{ type?: string; data?: Record<string, string> }>(objectPath(SECRETS, this.tokenNamespace, `${TOKEN_SECRET_PREFIX}${token.id}`)).catch((err: unknown) => {
      if (isKubeStatus(err, 404)) return undefined;
      throw err;
    });
    const check = checkToken(stored as never, token, new Date());
    if ("error" in check) {
      this.log.warn({ tokenId: token.id, cluster: req.clusterName }, "registration refused: bad bootstrap token");
      throw new RpcError(GrpcStatus.UNAUTHENTICATED, check.error);
    }
    if (!CLUSTER_NAME.test(req.clusterName)) {
      throw new RpcError(GrpcStatus.INVALID_ARGUMENT, `cluster name ${JSON.stringify(req.clusterName)} is not valid: a DNS label (lowercase letters, digits, '-', at most 63)`);
    }
    let keySha256: string;
    try {
      keySha256 = createHash("sha256").update(Buffer.from((await verifyCsr(req.csr)).publicKey.rawData)).digest("hex");
    } catch (err) {
      throw new RpcError(GrpcStatus.INVALID_ARGUMENT, (err as Error).message);
    }
    const body: Cluster = {
      apiVersion: API_VERSION,
      kind: "Cluster",
      metadata: { name: req.clusterName, finalizers: [CLUSTER_FINALIZER], annotations: { [REGISTERED_WITH_TOKEN]: token.id, [REGISTERED_KEY]: keySha256 } },
      spec: { ...(req.region ? { region: req.region } : {}), ...(req.zone ? { zone: req.zone } : {}), ...(req.provider ? { provider: req.provider } : {}) },
    };
    const created = await this.rest.request<Cluster>("POST", collectionPath(RESOURCES.cluster), { body }).catch(async (err: unknown): Promise<Cluster> => {
      if (isKubeStatus(err, 422)) throw new RpcError(GrpcStatus.INVALID_ARGUMENT, (err as Error).message);
      if (!isKubeStatus(err, 409)) throw err;
      // Taken, or our own earlier attempt whose answer was lost: the same token and key sign again.
      const existing = await this.rest.get<Cluster>(objectPath(RESOURCES.cluster, undefined, req.clusterName));
      const d = decideRegistrationRetry(existing, token.id, keySha256);
      if (d.action === "refuse" && d.reason === "unjoining") throw new RpcError(GrpcStatus.FAILED_PRECONDITION, `cluster ${req.clusterName} is being unjoined; register again once it is gone`);
      if (d.action === "refuse") throw new RpcError(GrpcStatus.ALREADY_EXISTS, `cluster ${req.clusterName} is already registered; pick another name, or \`flotillactl unjoin ${req.clusterName}\` first`);
      this.log.info({ cluster: req.clusterName, tokenId: token.id }, "registration retried with the same token and key; signing again");
      return existing;
    });
    const certificate = await signAgentCsr(this.ca, req.csr, { cluster: req.clusterName, clusterUid: created.metadata.uid ?? "", validityMs: this.validityMs });
    this.log.info({ cluster: req.clusterName, tokenId: token.id }, "cluster registered");
    return { certificate, caCertificate: this.ca.certPem };
  }

  /** A new certificate for a registered agent whose current certificate names this cluster and registration. */
  async renew(cluster: string, uid: string | undefined, csr: string): Promise<string> {
    const current = this.clusterNamed(cluster);
    if (current === undefined || current.metadata.deletionTimestamp !== undefined) throw new RpcError(GrpcStatus.PERMISSION_DENIED, `cluster ${cluster} is not registered`);
    if (uid === undefined || uid !== current.metadata.uid) {
      throw new RpcError(GrpcStatus.PERMISSION_DENIED, "only a certificate issued by registration can be renewed, and only for the current registration of its cluster");
    }
    try {
      return await signAgentCsr(this.ca, csr, { cluster, clusterUid: uid, validityMs: this.validityMs });
    } catch (err) {
      throw new RpcError(GrpcStatus.INVALID_ARGUMENT, (err as Error).message);
    }
  }
}
