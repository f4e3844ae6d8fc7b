// The Admin API's bootstrap-token calls: create, list and delete the Secrets that let a new member
// register (DESIGN §9). Token secrets are never logged or returned after creation.
import { status as GrpcStatus } from "@grpc/grpc-js";
import type { Logger } from "pino";
import type { KubeObject } from "../../shared/api/types.ts";
import type { CreateTokenRequest, CreateTokenResponse, DeleteTokenRequest, DeleteTokenResponse, ListTokensResponse } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import { SECRETS } from "../../shared/api/resources.ts";
import { collectionPath, isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { formatToken, newToken, TOKEN_SECRET_PREFIX, TOKEN_SECRET_TYPE, tokenInfo, tokenSecret, tokenTtlSeconds } from "../clusters/bootstrap-token.ts";
import { RpcError } from "../rpc.ts";

export class AdminTokens {
  private readonly rest: KubeRest;
  /** Where bootstrap tokens live; undefined when registration is off. */
  private readonly tokenNamespace: string | undefined;
  private readonly log: Logger;

  constructor(opts: { rest: KubeRest; tokenNamespace: string | undefined; log: Logger }) {
    this.rest = opts.rest;
    this.tokenNamespace = opts.tokenNamespace;
    this.log = opts.log;
  }

  private registrationNamespace(): string {
    if (this.tokenNamespace === undefined) throw new RpcError(GrpcStatus.FAILED_PRECONDITION, "registration is off on this control plane (start it with --ca-key)");
    return this.tokenNamespace;
  }

  async create(req: CreateTokenRequest): Promise<CreateTokenResponse> {
    const namespace = this.registrationNamespace();
    const ttl = tokenTtlSeconds(req.ttlSeconds);
    if ("error" in ttl) throw new RpcError(GrpcStatus.INVALID_ARGUMENT, ttl.error);
    const token = newToken();
    const expires = new Date(Date.now() + ttl.seconds * 1000);
    await this.ensureNamespace(namespace);
    await this.rest.request("POST", collectionPath(SECRETS, namespace), { body: tokenSecret(token, namespace, expires, req.description, req.uses) });
    this.log.info({ tokenId: token.id, expires: expires.toISOString(), usesAllowed: req.uses }, "bootstrap token created");
    return { token: formatToken(token), id: token.id, expires: expires.toISOString() };
  }

  async list(): Promise<ListTokensResponse> {
    const namespace = this.registrationNamespace();
    const list = await this.rest.get<{ items: KubeObject[] }>(collectionPath(SECRETS, namespace), { labelSelector: "flotilla.dev/bootstrap-token=true" }).catch((err: unknown) => {
      if (isKubeStatus(err, 404)) return { items: [] };
      throw err;
    });
    const now = Date.now();
    return {
      tokens: list.items
        .filter((s) => s.type === TOKEN_SECRET_TYPE)
        .map(tokenInfo)
        .map((t) => ({ ...t, expired: !(Date.parse(t.expires) > now) }))
        .sort((a, b) => (a.expires < b.expires ? -1 : 1)),
    };
  }

  async delete(req: DeleteTokenRequest): Promise<DeleteTokenResponse> {
    const namespace = this.registrationNamespace();
    if (!/^[a-z0-9]{6}$/.test(req.id)) throw new RpcError(GrpcStatus.INVALID_ARGUMENT, `${JSON.stringify(req.id)} is not a token id (6 lowercase letters or digits)`);
    await this.rest.delete(objectPath(SECRETS, namespace, `${TOKEN_SECRET_PREFIX}${req.id}`)).catch((err: unknown) => {
      if (isKubeStatus(err, 404)) throw new RpcError(GrpcStatus.NOT_FOUND, `no bootstrap token ${req.id}`);
      throw err;
    });
    return {};
  }

  private async ensureNamespace(name: string): Promise<void> {
    await this.rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name } } }).catch((err: unknown) => {
      // 409: it exists; 403: we may not create namespaces, so it must be made by whoever installed us.
      if (!isKubeStatus(err, 409) && !isKubeStatus(err, 403)) throw err;
    });
  }
}
