// The Admin API's Rollout call (issue 23): a template's progressive rollout by group and cluster,
// read from this replica's caches like every other read, and a user's commands on it (pause,
// resume, approve, abort, undo). A command reads the binding fresh from the apiserver and writes
// its status.rollout whole under that resourceVersion (state-patch.ts): when the rollout
// controller wrote in between (409), it reads again and decides again, so neither side's write is
// lost.
import { status as GrpcStatus } from "@grpc/grpc-js";
import type { Logger } from "pino";
import type { ResourceBinding } from "../../shared/api/types.ts";
import type { RolloutRequest, RolloutResponse } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import type { Caches } from "../caches/caches.ts";
import { RpcError } from "../rpc.ts";
import { applyCommand, type RolloutCommand } from "../rollout/rollout-commands.ts";
import { planOfBinding, type PlannedGroup } from "../rollout/rollout-groups.ts";
import { ROLLOUT_PATCH_CONTENT_TYPE, rolloutStatePatch } from "../rollout/state-patch.ts";
import { bindingName, bindsRef } from "../scheduling/binding-spec.ts";
import type { AdminMethod } from "./admin-access.ts";
import { commandChange, rolloutAction, rolloutView } from "./rollout-view.ts";
import { refName, type ResolvedRef, type TemplateResolver } from "../kinds/template-resolver.ts";

/** The field manager of a user's rollout command, next to the rollout controller's. */
export const ROLLOUT_ADMIN_FIELD_MANAGER = "flotilla-rollout-admin";
/** How many times a command is decided and written again after a conflicting write. */
const CONFLICT_TRIES = 5;

/** Which access a Rollout call needs: status is a read (viewers too), the commands are writes. */
export function rolloutMethod(req: RolloutRequest): AdminMethod {
  return "status" in rolloutAction(req.verb, req.group) ? "rolloutStatus" : "rollout";
}

export class AdminRollout {
  private readonly caches: Caches;
  private readonly rest: KubeRest;
  private readonly resolver: TemplateResolver;
  private readonly log: Logger;

  constructor(opts: { caches: Caches; rest: KubeRest; resolver: TemplateResolver; log: Logger }) {
    this.caches = opts.caches;
    this.rest = opts.rest;
    this.resolver = opts.resolver;
    this.log = opts.log;
  }

  async rollout(req: RolloutRequest): Promise<RolloutResponse> {
    const action = rolloutAction(req.verb, req.group);
    if ("error" in action) throw new RpcError(GrpcStatus.INVALID_ARGUMENT, action.error);
    const ref = await this.resolver.resolve(req.template);
    const template = { apiVersion: ref.apiVersion, kind: ref.kind, namespace: ref.namespace ?? "", name: ref.name };
    if ("status" in action) return { template, change: "", ...this.view(ref, this.caches.bindingOf(ref)) };
    return { template, ...(await this.command(ref, action.command)) };
  }

  /** Decides the command on the binding as the apiserver has it now, and writes the result. */
  private async command(ref: ResolvedRef, command: RolloutCommand): Promise<Omit<RolloutResponse, "template">> {
    const path = this.bindingPath(ref);
    for (let attempt = 1; ; attempt++) {
      const binding = await this.rest.get<ResourceBinding>(path).catch((err: unknown) => {
        if (isKubeStatus(err, 404)) return undefined;
        throw err;
      });
      if (binding === undefined || !bindsRef(binding, ref)) throw noBinding(ref);
      if (binding.spec.rollout === undefined) throw noStrategy(ref);
      const before = binding.status?.rollout;
      const decided = applyCommand(before, command, Date.now());
      if ("refused" in decided) throw new RpcError(GrpcStatus.FAILED_PRECONDITION, decided.refused);
      const patch = rolloutStatePatch(binding.metadata.resourceVersion ?? "", before, decided.state);
      try {
        const written = await this.rest.request<ResourceBinding>("PATCH", `${path}/status`, { body: patch, contentType: ROLLOUT_PATCH_CONTENT_TYPE, query: { fieldManager: ROLLOUT_ADMIN_FIELD_MANAGER } });
        this.log.info({ template: `${ref.kind} ${refName(ref)}`, verb: command.verb, phase: decided.state.phase, revision: decided.state.revision }, "rollout command written");
        return { change: commandChange(command, before ?? decided.state, decided.state), ...this.view(ref, written) };
      } catch (err) {
        if (!isKubeStatus(err, 409)) throw err;
        if (attempt >= CONFLICT_TRIES) throw new RpcError(GrpcStatus.ABORTED, `the binding of ${ref.kind} ${refName(ref)} changed under each of ${CONFLICT_TRIES} tries; try again`);
      }
    }
  }

  /** The rollout's state laid out by the groups its strategy makes of the binding's clusters. */
  private view(ref: ResolvedRef, binding: ResourceBinding | undefined): Omit<RolloutResponse, "template" | "change"> {
    if (binding === undefined) throw noBinding(ref);
    const strategy = binding.spec.rollout;
    if (strategy === undefined) throw noStrategy(ref);
    let groups: PlannedGroup[];
    try {
      groups = planOfBinding(strategy, binding, (n) => this.caches.clusters.get(n)).groups;
    } catch (err) {
      throw new RpcError(GrpcStatus.FAILED_PRECONDITION, `the rollout strategy of ${ref.kind} ${refName(ref)} cannot be read: ${(err as Error).message}`);
    }
    return rolloutView(binding.status?.rollout, groups, `no rollout state yet: the rollout controller records one when it first sees ${ref.kind} ${refName(ref)}'s revision`);
  }

  /** The binding's path: the cached binding's name (it may be under a legacy name), else the name it gets. */
  private bindingPath(ref: ResolvedRef): string {
    const name = this.caches.bindingOf(ref)?.metadata.name ?? bindingName(ref);
    return ref.namespace ? objectPath(RESOURCES.resourceBinding, ref.namespace, name) : objectPath(RESOURCES.clusterResourceBinding, undefined, name);
  }
}

function noBinding(ref: ResolvedRef): RpcError {
  return new RpcError(GrpcStatus.NOT_FOUND, `${ref.kind} ${refName(ref)} has no binding: no propagation policy selects it`);
}

function noStrategy(ref: ResolvedRef): RpcError {
  return new RpcError(GrpcStatus.FAILED_PRECONDITION, `no rollout: the policy that propagates ${ref.kind} ${refName(ref)} has no spec.rollout, so a change reaches every cluster at once`);
}
