// Counting a bootstrap token's registrations in its Secret (bootstrap-token.ts decides; this file
// writes). Every replica registers, so two registrations can race for a token's last use: each
// write is a PUT guarded by the resourceVersion it read, and a conflict reads again and decides
// again. A use is spent before the Cluster is created and given back only when the create was
// refused, so a lost answer or a crash can waste a use but never grant an extra one.
import { status as GrpcStatus } from "@grpc/grpc-js";
import { SECRETS } from "../../shared/api/resources.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { RpcError } from "../rpc.ts";
import { type BootstrapToken, checkToken, returnUse, spendUse, TOKEN_SECRET_PREFIX } from "./bootstrap-token.ts";

/** Conflicting writes tried before a registration gives up (each conflict means another registration won). */
const ATTEMPTS = 8;

export class TokenUses {
  private readonly rest: KubeRest;
  private readonly namespace: string;

  constructor(rest: KubeRest, namespace: string) {
    this.rest = rest;
    this.namespace = namespace;
  }

  /** The token's Secret, or undefined when there is none. */
  async read(id: string): Promise<KubeObject | undefined> {
    return this.rest.get<KubeObject>(this.path(id)).catch((err: unknown) => {
      if (isKubeStatus(err, 404)) return undefined;
      throw err;
    });
  }

  /**
   * Counts one registration; `stored` is a fresh read to start from. True when a use was counted
   * (false: the token has no limit). Refuses (UNAUTHENTICATED) a token with no uses left, or one
   * that expired or was deleted meanwhile.
   */
  async spend(token: BootstrapToken, stored: KubeObject | undefined): Promise<boolean> {
    let current = stored;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const check = checkToken(current, token, new Date());
      if ("error" in check) throw new RpcError(GrpcStatus.UNAUTHENTICATED, check.error);
      const spent = spendUse(current as KubeObject);
      if ("error" in spent) throw new RpcError(GrpcStatus.UNAUTHENTICATED, spent.error);
      if (spent.next === undefined) return false;
      if (await this.write(token.id, spent.next)) return true;
      current = await this.read(token.id);
    }
    throw new RpcError(GrpcStatus.UNAVAILABLE, "too many registrations with this bootstrap token at once; try again");
  }

  /** Gives back a use counted for a registration that was then refused; best effort (a lost use is the safe side). */
  async giveBack(id: string): Promise<void> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const current = await this.read(id);
      const next = current === undefined ? undefined : returnUse(current);
      if (next === undefined || (await this.write(id, next))) return;
    }
  }

  /** True when written; false when the Secret changed since it was read (409) or is gone (404). */
  private async write(id: string, next: KubeObject): Promise<boolean> {
    // next carries the resourceVersion of the read it came from: the apiserver refuses a stale one.
    return this.rest.request("PUT", this.path(id), { body: next }).then(
      () => true,
      (err: unknown) => {
        if (isKubeStatus(err, 409, 404)) return false;
        throw err;
      },
    );
  }

  private path(id: string): string {
    return objectPath(SECRETS, this.namespace, `${TOKEN_SECRET_PREFIX}${id}`);
  }
}
