// What a member's admin does to let Flotilla's member API callers in (docs/guides/member-api.md):
// bind the two groups the agent impersonates into. The local fleet lets viewers read (`view`) and
// admins do anything (`cluster-admin`); writes still need the agent's --member-api-writes.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { join } from "node:path";
import { ensureBinaries } from "./binaries.ts";

export const MEMBER_API_BINDINGS = { viewers: "view", admins: "cluster-admin" } as const;

/** Binds flotilla:viewers and flotilla:admins in the member of this kubeconfig (server-side apply: again is a no-op). */
export async function bindMemberApiGroups(kubeconfigPath: string, bindings: Record<string, string> = MEMBER_API_BINDINGS): Promise<void> {
  const kubectl = join(await ensureBinaries(), "kubectl");
  const items = Object.entries(bindings).map(([group, role]) => ({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: `flotilla-${group}` },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: `flotilla:${group}` }],
  }));
  const child = promisify(execFile)(kubectl, ["--kubeconfig", kubeconfigPath, "apply", "--server-side", "--field-manager=flotilla-up", "-f", "-"], { encoding: "utf8" });
  child.child.stdin?.end(JSON.stringify({ apiVersion: "v1", kind: "List", items }));
  await child;
}
