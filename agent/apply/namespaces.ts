// The member namespaces the agent creates for namespaced manifests (DESIGN §2: a namespaced
// template lands in a namespace of the same name, created if missing). The agent remembers the
// namespaces it has seen, so it does not POST one per apply; that memory must never outlive the
// namespace (issue 20, item 8): a namespace deleted by hand is forgotten as soon as an apply says
// it is gone or terminating, and the next apply creates it again.
import { isKubeStatus, KubeError, type KubeRest } from "../../shared/kube-rest.ts";
import { AGENT_CREATED_ANNOTATION } from "./apply-decision.ts";

/** How an apply failed because of its namespace: "gone" (create it and retry now) or "terminating" (retry once it is gone). */
export type NamespaceFailure = "gone" | "terminating";

/** Whether an apply into `namespace` failed because that namespace is missing or being deleted: pure. */
export function namespaceFailure(err: { status: number; message: string }, namespace: string): NamespaceFailure | undefined {
  // The apiserver's NamespaceLifecycle admission: 404 `namespaces "x" not found`, 403 `… unable to
  // create new content in namespace x because it is being terminated`.
  if (err.status === 404 && err.message.includes(`namespaces "${namespace}" not found`)) return "gone";
  if (err.status === 403 && err.message.includes(`namespace ${namespace} because it is being terminated`)) return "terminating";
  return undefined;
}

/** The same, for anything an apply may throw. */
export function namespaceFailureOf(err: unknown, namespace: string): NamespaceFailure | undefined {
  return err instanceof KubeError ? namespaceFailure(err, namespace) : undefined;
}

/**
 * How long to wait before applying again into a namespace that has been terminating this long:
 * 2 s at first (it usually goes within seconds), then a quarter of the time it has taken, at most a
 * minute, so a namespace stuck terminating (a finalizer nobody removes) costs little: pure.
 */
export function terminatingRetryMs(elapsedMs: number): number {
  return Math.min(60_000, Math.max(2_000, Math.round(elapsedMs / 4)));
}

/** Creates member namespaces once, and forgets one when it turns out gone. */
export class Namespaces {
  private readonly known = new Set<string>();
  /** When an apply first found each namespace terminating. */
  private readonly terminatingSince = new Map<string, number>();
  private readonly rest: KubeRest;
  private readonly now: () => number;

  constructor(rest: KubeRest, now: () => number = Date.now) {
    this.rest = rest;
    this.now = now;
  }

  /** Creates the namespace unless the agent knows it exists (an existing one, even terminating, is not an error here). */
  async ensure(name: string): Promise<void> {
    if (this.known.has(name)) return;
    const metadata = { name, annotations: { [AGENT_CREATED_ANNOTATION]: "true" } };
    const created = await this.rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata } }).then(
      () => true,
      (err: unknown) => {
        if (!isKubeStatus(err, 409)) throw err;
        return false;
      },
    );
    if (created) this.terminatingSince.delete(name);
    this.known.add(name);
  }

  /** The namespace was deleted: the next ensure creates it again. */
  forget(name: string): void {
    this.known.delete(name);
  }

  /** The namespace is being deleted: forgets it, and says how long to wait before trying again. */
  terminating(name: string): number {
    this.known.delete(name);
    const now = this.now();
    const since = this.terminatingSince.get(name) ?? now;
    this.terminatingSince.set(name, since);
    return terminatingRetryMs(now - since);
  }
}
