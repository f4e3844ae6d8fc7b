// The detector part: informers on the template kinds that policies and bindings name, and the
// leader's binding controller (policy match + scheduling → ResourceBinding).
import { Controller } from "../../shared/controller.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { BindingController } from "./binding-controller.ts";
import { DEPENDENCY_KINDS } from "./dependencies.ts";
import type { KindRef } from "./template-informers.ts";

export function startDetector(ctx: ControlPlaneContext): Part {
  const { caches, templates, log } = ctx;
  const bindingCtl = new BindingController({ caches, templates, rest: ctx.rest, outcomes: ctx.outcomes, log, evictionPeriodMs: ctx.opts.gracefulEvictionPeriodMs, requireAcceptance: ctx.opts.requireAcceptance });
  ctx.events.on("templateChanged", (k) => bindingCtl.templateChanged(k));

  // Which kinds to watch follows the policies and bindings; one key, so bursts coalesce.
  const wantedKinds = (): KindRef[] => {
    const kinds = new Map<string, KindRef>();
    for (const p of caches.allPolicies()) for (const s of p.spec.resourceSelectors ?? []) kinds.set(`${s.apiVersion}|${s.kind}`, s);
    for (const b of caches.allBindings()) kinds.set(`${b.spec.resource.apiVersion}|${b.spec.resource.kind}`, b.spec.resource);
    // propagateDeps: what workloads refer to must be watched even when no policy selects it.
    if (caches.allPolicies().some((p) => p.spec.propagateDeps === true)) for (const k of DEPENDENCY_KINDS) kinds.set(`v1|${k}`, { apiVersion: "v1", kind: k });
    return [...kinds.values()];
  };
  const kindsCtl = new Controller({
    name: "template-kinds",
    workers: 1,
    log,
    reconcile: async () => {
      const kinds = wantedKinds();
      await templates.ensure(kinds);
      bindingCtl.enqueueAll(kinds);
      const missing = templates.unresolvedKinds();
      if (missing.length > 0) {
        log.warn({ kinds: missing }, "policies select kinds the control cluster does not serve; retrying");
        return { requeueAfterMs: 5000 };
      }
      return undefined;
    },
  });
  const kindsChanged = () => kindsCtl.enqueue("kinds");
  for (const inf of [caches.policies, caches.clusterPolicies, caches.bindings, caches.clusterBindings]) {
    inf.on({ add: kindsChanged, update: kindsChanged, delete: kindsChanged });
  }

  return {
    synced: async () => {
      await templates.ensure(wantedKinds());
      kindsChanged();
    },
    controllers: [kindsCtl],
    leaderControllers: [bindingCtl.controller],
    startedLeading: () => bindingCtl.enqueueAll(wantedKinds()),
  };
}
