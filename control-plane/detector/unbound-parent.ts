// A dependency's parent whose binding is missing (deleted by hand, lost in a restore, never made
// again because no policy claims it) or deleted by hand: pure. Its workload still runs where its
// binding placed it (a missing binding is no intent, DESIGN §11), so the dependency keeps the
// entry the parent had in its requiredBy, as it was, while the parent's template lives and still
// refers to it. Found by the deletion model: a workload's policy deleted and its binding deleted
// by hand released the ConfigMap it mounts, and every member removed it under the running pods.
import { bindingName } from "../scheduling/binding-spec.ts";
import type { KindRef } from "./template-informers.ts";

/** What is known of the parent: its template lives (and refers to the dependency, or not), is gone, or cannot be told. */
export type UnboundParent = { state: "lives"; refers: boolean } | { state: "gone" } | { state: "unknown" };

/** Whether the dependency keeps the parent's entry: while the parent lives and refers to it, or cannot be told apart from one that does. */
export function keepsEntry(parent: UnboundParent): boolean {
  return parent.state === "unknown" || (parent.state === "lives" && parent.refers);
}

/**
 * The parents a binding of that name could bind, among the watched kinds (`kinds`), as a kind and
 * a name: every kind whose binding names end as this one does (`<name>-<kind>`, and the group's
 * digest for a group with a dot; two groups without a dot share a suffix). For an entry written
 * before entries named their template (BindingSnapshot.resource). None when no watched kind fits,
 * or the name was shortened (a hash ends it): the parent cannot be told then.
 */
export function parentsOfBindingName(name: string, kinds: readonly KindRef[]): { kind: KindRef; name: string }[] {
  const out: { kind: KindRef; name: string }[] = [];
  for (const kind of kinds) {
    // The suffix bindingName gives every object of this kind: what follows a one-letter name.
    const suffix = bindingName({ apiVersion: kind.apiVersion, kind: kind.kind, name: "x" }).slice(1);
    if (name.length > suffix.length && name.endsWith(suffix)) {
      const parent = name.slice(0, -suffix.length);
      // Only a name bindingName gives back (not one it shortened).
      if (bindingName({ apiVersion: kind.apiVersion, kind: kind.kind, name: parent }) === name) out.push({ kind, name: parent });
    }
  }
  return out;
}
