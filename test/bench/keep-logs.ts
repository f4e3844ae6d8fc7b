// A failed benchmark keeps the control plane's and agents' logs (fleet.stop() removes the fleet's
// root with them) and says where, for the post-mortem.
import { cp, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Fleet } from "../env/fleet.ts";

export async function keepFlotillaLogs(fleet: Fleet | undefined): Promise<void> {
  if (fleet === undefined) return;
  const keep = await mkdtemp(join(tmpdir(), "flotilla-bench-logs-"));
  await cp(join(fleet.root, "flotilla-logs"), keep, { recursive: true }).catch(() => undefined);
  console.error(`Flotilla logs kept in ${keep}`);
}
