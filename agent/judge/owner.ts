// Whose a member object is, beyond its Work's label (issue 20 item 4): two Flotilla fleets, or two
// agents of one fleet, sharing one member must never adopt, overwrite or delete each other's
// objects. Every object the agent applies carries `flotilla.dev/owner: <fleet>/<cluster>`; the
// fleet is named by a digest of its CA certificate, which every agent of the fleet already holds.
import { createHash } from "node:crypto";
import type { KubeObject } from "../../shared/api/types.ts";

export const OWNER_ANNOTATION = "flotilla.dev/owner";

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
