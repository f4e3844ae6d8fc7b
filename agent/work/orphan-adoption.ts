// Member objects that carry a Work's label but no record names (an agent killed between apply
// and record; DESIGN §11): looked for once per run, after the first sync with the hub, and
// adopted into records (judge/orphans.ts decides), so that only the hub's intent removes them.
import type { Logger } from "pino";
import type { Discovery } from "../../shared/discovery.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import type { AppliedStore } from "../applied/applied-store.ts";
import { labelledObjects } from "../applied/member-lists.ts";
import { adoptOrphans } from "../judge/orphans.ts";
import type { DesiredWork } from "./work-message.ts";

export interface OrphanAccess {
  rest: KubeRest;
  discovery: Discovery;
  applied: AppliedStore;
  owner: string | undefined;
  log: Logger;
  /** The Works held with their manifests. */
  desired: ReadonlyMap<string, DesiredWork>;
}

/**
 * Adopts the member objects of the kinds the records and the held Works hold. Returns the
 * adopted keys the agent holds no Work for: only the hub can say whether they are wanted.
 */
export async function adoptUnrecorded(s: OrphanAccess): Promise<string[]> {
  const kinds = new Map<string, { apiVersion: string; kind: string }>();
  for (const k of s.applied.kinds()) kinds.set(`${k.apiVersion}|${k.kind}`, k);
  for (const r of s.applied.all().values()) for (const res of r.resources) kinds.set(`${res.apiVersion}|${res.kind}`, res);
  for (const w of s.desired.values()) for (const m of w.manifests) kinds.set(`${m.apiVersion}|${m.kind}`, m);
  const adopted = adoptOrphans(s.applied.all(), await labelledObjects(s.rest, s.discovery, kinds.values()), s.owner);
  for (const r of adopted) s.applied.set(r);
  if (adopted.length > 0) await s.applied.flush();
  if (adopted.length > 0) s.log.info({ works: adopted.map((r) => r.key) }, "adopted member objects that no applied record named");
  return adopted.map((r) => r.key).filter((k) => !s.desired.has(k));
}

/** Runs the adoption once per run, after the first sync: a failure is tried again at the next sync. */
export class OrphanCheck {
  private checked = false;
  private readonly adopt: () => Promise<string[]>;
  /** Asks the hub about Works adopted but not held (a resync). */
  private readonly askHub: () => void;
  private readonly log: Logger;

  constructor(adopt: () => Promise<string[]>, askHub: () => void, log: Logger) {
    this.adopt = adopt;
    this.askHub = askHub;
    this.log = log;
  }

  afterSync(): void {
    if (this.checked) return;
    this.checked = true;
    void this.adopt().then(
      (unheld) => {
        if (unheld.length > 0) this.askHub();
      },
      (err: unknown) => {
        this.checked = false;
        this.log.warn({ err: String(err) }, "looking for unrecorded member objects failed");
      },
    );
  }
}
