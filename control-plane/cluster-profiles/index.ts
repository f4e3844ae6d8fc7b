// The ClusterProfile part (issue 41, DESIGN §14): the leader publishes one SIG Multicluster
// ClusterProfile per member Cluster in --cluster-profile-namespace, so that tools reading the
// cluster inventory API (Argo CD, MultiKueue, Headlamp) find the fleet, pointing at the member API.
import { Informer } from "../../shared/informer.ts";
import { counterOf } from "../../shared/metrics.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { type ClusterProfile, slimProfile } from "./cluster-profile.ts";
import { CLUSTER_PROFILES, ProfileController } from "./profile-controller.ts";

/**
 * Starts the part; off (an empty part) when ctx.opts.clusterProfileNamespace is undefined or "".
 * `memberApiUrl`: the member API's base URL (a member's endpoint is <url>/clusters/<name>), or
 * undefined when the control plane serves none: then the profiles carry no access provider. As a
 * function, it is asked once this part's serve() ran (put the part after the member API's in the
 * assembly's list, whose serve() settles its URL): no profile is written before, so a profile
 * never loses and regains its provider at a start.
 */
export function startClusterProfiles(ctx: ControlPlaneContext, o: { memberApiUrl: string | undefined | (() => string | undefined) }): Part {
  const namespace = ctx.opts.clusterProfileNamespace ?? "";
  if (namespace === "") return {};
  const log = ctx.log.child({ component: "cluster-profiles" });
  const caData = Buffer.from(ctx.opts.tls.caPem).toString("base64");
  const urlOf = typeof o.memberApiUrl === "function" ? o.memberApiUrl : () => o.memberApiUrl as string | undefined;
  let served = false;
  // The cache keeps what the decision reads (no CA bundle, no other writer's entries): one small object per cluster.
  const profiles = new Informer<ClusterProfile>({ kc: ctx.opts.kc, rest: ctx.rest, resource: CLUSTER_PROFILES, namespace, transform: slimProfile, log });
  const access = () => {
    const url = urlOf();
    return url === undefined || url === "" ? undefined : { url, caData };
  };
  const profileController = new ProfileController({ caches: ctx.caches, profiles, rest: ctx.rest, log, recorder: ctx.recorder, namespace, access, ready: () => served });
  counterOf(
    "flotilla_cluster_profile_actions_total",
    "ClusterProfile actions, by kind: a profile created, its status written (Flotilla's part changed), a profile deleted (its Cluster gone), a Cluster whose name another cluster manager's profile holds (left as it is).",
    () => [
      [{ action: "created" }, profileController.counts.created] as const,
      [{ action: "status" }, profileController.counts.status] as const,
      [{ action: "deleted" }, profileController.counts.deleted] as const,
      [{ action: "conflict" }, profileController.counts.foreign] as const,
    ],
    ["action"],
  );
  return {
    synced: async () => {
      // Resolves after the first list, or after it failed (the CRD not served yet: it is retried
      // with backoff); the control plane starts either way, and once the profiles list every name is asked again.
      await profiles.start();
      void profiles.whenSynced().then(() => profileController.enqueueAll());
    },
    leaderControllers: [profileController.controller],
    startedLeading: () => profileController.enqueueAll(),
    serve: async () => {
      served = true;
      profileController.enqueueAll();
    },
    stop: () => profiles.stop(),
  };
}
