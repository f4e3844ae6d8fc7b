// Registration and renewal of agent certificates (DESIGN §7). A new member presents a bootstrap
// token and a CSR: the control plane creates its Cluster (with the cleanup finalizer `unjoin`
// waits on) and signs a client certificate bound to that Cluster's uid, so a certificate of an
// unjoined cluster never works again, even for a later cluster of the same name. A registered
// agent renews with its current certificate.
import { createHash } from "node:crypto";
import { status as GrpcStatus } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { Cluster, KubeObject } from "../../shared/api/types.ts";
import { API_VERSION } from "../../shared/api/types.ts";
import type { RegisterRequest, RegisterResponse } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { collectionPath, isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { type KeyPair, signAgentCsr, verifyCsr } from "../../shared/pki.ts";
import { type BootstrapToken, checkToken, parseToken } from "./bootstrap-token.ts";
import { decideRegistrationRetry, REGISTERED_KEY, REGISTERED_WITH_TOKEN } from "./registration-retry.ts";
import { TokenUses } from "./token-uses.ts";
import { RpcError } from "../rpc.ts";

/** Holds a registered Cluster until its agent has removed what Flotilla applied (or --force). */
export const CLUSTER_FINALIZER = "flotilla.dev/cluster-cleanup";
const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export class Registrar {
  private readonly rest: KubeRest;
  private readonly ca: KeyPair;
  private readonly tokens: TokenUses;
  private readonly validityMs: number;
  private readonly clusterNamed: (name: string) => Cluster | undefined;
  private readonly log: Logger;

  constructor(opts: { rest: KubeRest; ca: KeyPair; tokenNamespace: string; certValidityMs: number; clusterNamed: (name: string) => Cluster | undefined; log: Logger }) {
    this.rest = opts.rest;
    this.ca = opts.ca;
    this.tokens = new TokenUses(opts.rest, opts.tokenNamespace);
    this.validityMs = opts.certValidityMs;
    this.clusterNamed = opts.clusterNamed;
    this.log = opts.log;
  }

  /** Creates the Cluster and signs its agent's certificate; refuses with a status and a message. */
  async register(req: RegisterRequest): Promise<RegisterResponse> {
    const token = parseToken(req.bootstrapToken);
    if ("error" in token) throw new RpcError(GrpcStatus.UNAUTHENTICATED, token.error);
    const stored = await this.tokens.read(token.id);
    const check = checkToken(stored, token, new Date());
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
    // A registration that already happened (its answer was lost) signs again without spending a
    // use, even of a token whose uses are all made; a new one spends a use first.
    const existing = await this.existing(req.clusterName);
    const created = existing !== undefined ? this.retried(existing, req.clusterName, token.id, keySha256) : await this.create(body, token, stored, keySha256);
    const certificate = await signAgentCsr(this.ca, req.csr, { cluster: req.clusterName, clusterUid: created.metadata.uid ?? "", validityMs: this.validityMs });
    this.log.info({ cluster: req.clusterName, tokenId: token.id }, "cluster registered");
    return { certificate, caCertificate: this.ca.certPem };
  }

  private async existing(name: string): Promise<Cluster | undefined> {
    return this.rest.get<Cluster>(objectPath(RESOURCES.cluster, undefined, name)).catch((err: unknown) => {
      if (isKubeStatus(err, 404)) return undefined;
      throw err;
    });
  }

  /** The Cluster to sign for when one of the name exists: our own earlier registration, else a refusal. */
  private retried(existing: Cluster, name: string, tokenId: string, keySha256: string): Cluster {
    const d = decideRegistrationRetry(existing, tokenId, keySha256);
    if (d.action === "refuse" && d.reason === "unjoining") throw new RpcError(GrpcStatus.FAILED_PRECONDITION, `cluster ${name} is being unjoined; register again once it is gone`);
    if (d.action === "refuse") throw new RpcError(GrpcStatus.ALREADY_EXISTS, `cluster ${name} is already registered; pick another name, or \`flotillactl unjoin ${name}\` first`);
    this.log.info({ cluster: name, tokenId }, "registration retried with the same token and key; signing again");
    return existing;
  }

  /** Spends a use of the token, then creates the Cluster; a refused create gives the use back. */
  private async create(body: Cluster, token: BootstrapToken, stored: KubeObject | undefined, keySha256: string): Promise<Cluster> {
    const name = body.metadata.name ?? "";
    const spent = await this.tokens.spend(token, stored);
    const giveBack = async () => {
      if (spent) await this.tokens.giveBack(token.id);
    };
    return this.rest.request<Cluster>("POST", collectionPath(RESOURCES.cluster), { body }).catch(async (err: unknown): Promise<Cluster> => {
      if (isKubeStatus(err, 422)) {
        await giveBack();
        throw new RpcError(GrpcStatus.INVALID_ARGUMENT, (err as Error).message);
      }
      // Anything but a refusal may have created it: the use stays spent.
      if (!isKubeStatus(err, 409)) throw err;
      // Created meanwhile by a registration racing this one: ours, sent twice, or someone else's.
      await giveBack();
      const existing = await this.existing(name);
      if (existing === undefined) throw new RpcError(GrpcStatus.UNAVAILABLE, `cluster ${name} was created and deleted while registering; try again`);
      return this.retried(existing, name, token.id, keySha256);
    });
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
