// Whose a member object is, beyond its Work's label (issue 20 item 4): two Flotilla fleets, or two
// agents of one fleet, sharing one member must never adopt, overwrite or delete each other's
// objects. Every object the agent applies carries `flotilla.dev/owner: <fleet>/<cluster>`; the
// fleet is named by a digest of its CA certificate, which every agent of the fleet already holds.
import { createHash } from "node:crypto";
import type { KubeObject } from "../../shared/api/types.ts";

export const OWNER_ANNOTATION = "flotilla.dev/owner";

/** Karmada's label on every object its agent applies in a member (pkg/util: ManagedByKarmadaLabel). */
export const KARMADA_MANAGED_LABEL = "karmada.io/managed";
/** KubeFed's label on every object its sync controller applies in a member (pkg/controller/util: ManagedByKubeFedLabelKey). */
export const KUBEFED_MANAGED_LABEL = "kubefed.io/managed";
/**
 * The labels a system Flotilla adopts from marks its objects with (apply/adoption.ts). A released
 * object loses them with Flotilla's own: adopted once, it is no one's to adopt again, so a template
 * still marked for adoption never takes over what a person runs after the release.
 */
export const ADOPTABLE_LABELS = [KARMADA_MANAGED_LABEL, KUBEFED_MANAGED_LABEL] as const;

/** This agent's owner value: the fleet (16 hex of the SHA-256 of its CA certificate) and the cluster it serves. */
export function ownerOf(caPem: Buffer | string, cluster: string): string {
  const fleet = createHash("sha256").update(typeof caPem === "string" ? caPem.trim() : caPem.toString("utf8").trim()).digest("hex").slice(0, 16);
  return `${fleet}/${cluster}`;
}

/**
 * Whether an object another owner marked: true only when it carries an owner that is not ours.
 * An object from before owners (no annotation) is not foreign; with no owner of our own, nothing is.
 */
export function foreign(o: KubeObject, owner: string | undefined): boolean {
  const theirs = o.metadata.annotations?.[OWNER_ANNOTATION];
  return owner !== undefined && theirs !== undefined && theirs !== owner;
}
