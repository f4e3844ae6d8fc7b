// The detector part: informers on the template kinds that policies and bindings name, and the
// leader's binding controller (policy match + scheduling → ResourceBinding).
import { Controller } from "../../shared/controller.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { BindingController } from "./binding-controller.ts";
import type { KindRef } from "./template-informers.ts";
import { addedKinds, kindsSignature, wantedKinds } from "./wanted-kinds.ts";

export function startDetector(ctx: ControlPlaneContext): Part {
  const { caches, templates, log } = ctx;
  const bindingCtl = new BindingController({ caches, templates, rest: ctx.rest, outcomes: ctx.outcomes, log, evictionPeriodMs: ctx.opts.gracefulEvictionPeriodMs, unschedulableThresholdMs: ctx.opts.unschedulableThresholdMs, dependencyReleaseGraceMs: ctx.opts.dependencyReleaseGraceMs, requireAcceptance: ctx.opts.requireAcceptance, interpreters: ctx.interpreters, quotaGuard: (t, e, d) => ctx.scheduleGuards.quota?.(t, e, d), ...(ctx.opts.templateSyncs === undefined ? {} : { workers: ctx.opts.templateSyncs }) });
  ctx.events.on("templateChanged", (k) => bindingCtl.templateChanged(k));

  // Which kinds to watch follows the policies and bindings; one key, so bursts coalesce.
  const wanted = (): KindRef[] => wantedKinds(caches.allPolicies(), caches.bindingIndex.kinds(), bindingCtl.dependencyKinds());
  /** The kinds watched after the last reconcile. */
  let watched: KindRef[] = [];
  const kindsCtl = new Controller({
    name: "template-kinds",
    workers: 1,
    log,
    reconcile: async () => {
      const kinds = wanted();
      await templates.ensure(kinds);
      const now = kinds.filter((k) => templates.watching(k));
      for (const k of addedKinds(watched, now)) bindingCtl.enqueueBindingsOfKind(k);
      watched = now;
      const missing = templates.unresolvedKinds();
      if (missing.length > 0) {
        log.warn({ kinds: missing }, "policies select kinds the control cluster does not serve; retrying");
        return { requeueAfterMs: 5000 };
      }
      return undefined;
    },
  });
  // Only a change of the set of kinds needs the controller: a binding's status write, by far the
  // most frequent event, changes no kind and costs one comparison.
  let enqueuedKinds: string | undefined;
  const kindsMayHaveChanged = () => {
    const signature = kindsSignature(wanted());
    if (signature === enqueuedKinds) return;
    enqueuedKinds = signature;
    kindsCtl.enqueue("kinds");
  };
  for (const inf of [caches.policies, caches.clusterPolicies]) inf.on({ add: kindsMayHaveChanged, update: kindsMayHaveChanged, delete: kindsMayHaveChanged });
  // A kind a parent's dependencies name (a customization's GetDependencies may name any) is watched too.
  bindingCtl.onDependencyKindsChange(kindsMayHaveChanged);
  let bindingKindsVersion = -1;
  const bindingChanged = () => {
    if (caches.bindingIndex.kindsVersion === bindingKindsVersion) return;
    bindingKindsVersion = caches.bindingIndex.kindsVersion;
    kindsMayHaveChanged();
  };
  for (const inf of [caches.bindings, caches.clusterBindings]) inf.on({ add: bindingChanged, update: bindingChanged, delete: bindingChanged });

  return {
    synced: async () => {
      const kinds = wanted();
      await templates.ensure(kinds);
      watched = kinds.filter((k) => templates.watching(k));
      enqueuedKinds = kindsSignature(kinds);
      kindsCtl.enqueue("kinds"); // reports kinds not served, and retries them
    },
    controllers: [kindsCtl],
    leaderControllers: [bindingCtl.controller],
    startedLeading: () => bindingCtl.enqueueAll(wanted()),
  };
}
