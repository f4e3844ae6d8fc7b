// What one agent's stream may be told to delete (DESIGN §11): only a Work it holds, only with the
// user's intent, and, past the cluster's budget within the window, only once a person approved.
import { FEATURES } from "../../shared/protocol.ts";
import { DEFAULT_DELETION_BUDGET, type DeletionBudget, DeletionWindow } from "./deletion-brake.ts";
import { DependentWaits } from "./dependent-waits.ts";

/** Why a Work goes, and whether its objects stay in the member (released from Flotilla). */
export interface Intent {
  reason: string;
  preserve: boolean;
  /** The binding that would say whether to preserve is gone: only the agent's record can tell. */
  preserveUnknown?: boolean;
  /** A workload that requires it is placed or still runs there (deletion-intent.ts): it waits for that Work to go first. */
  waitsFor?: string;
}

/**
 * What an agent that lacks a feature would get wrong about a removal, or undefined when nothing:
 * without durable-preserve it would delete what its record says to preserve; without
 * keep-unmanaged-contents it would cascade a Namespace's or CRD's deletion past Flotilla's objects,
 * and without keep-other-works-contents past another Work's objects in it.
 */
export function misreadBy(features: ReadonlySet<string>, key: string, intent: Intent): string | undefined {
  if (intent.preserve) return undefined;
  if (intent.preserveUnknown === true && !features.has(FEATURES.durablePreserve)) return FEATURES.durablePreserve;
  const kind = key.split("/")[2];
  if (kind === "Namespace" || kind === "CustomResourceDefinition") {
    for (const f of [FEATURES.keepUnmanagedContents, FEATURES.keepOtherWorksContents]) if (!features.has(f)) return f;
  }
  return undefined;
}

/** The features the hub relies on for removals; an agent that lacks one is AgentOutdated. */
export const REMOVAL_FEATURES: readonly string[] = [FEATURES.durablePreserve, FEATURES.keepUnmanagedContents, FEATURES.keepOtherWorksContents];

/**
 * Removals that judge a Work by the cluster's placement or a parent's: for a Work applied under an
 * earlier registration of the cluster they are held. A deleted template (TemplateDeleted) and an
 * unjoin (ClusterUnjoined) say what to do whatever the registration.
 */
export const EARLIER_REGISTRATION_REASONS: ReadonlySet<string> = new Set(["PlacementChanged", "DependencyReleased"]);

/** A person's answer to the held deletions of a cluster (flotillactl deletions approve|reject). */
export type Decision = "approve" | "reject";

/** The status word a held deletion shows on its binding. */
export const DELETION_HELD = "DeletionHeld";

export class OutboundDeletions {
  /** The Works the agent holds, as far as this stream knows: its Hello's, plus upserts sent, less deletes sent. */
  readonly holds = new Set<string>();
  /** Held deletions: key → the intent's reason. */
  private readonly held = new Map<string, string>();
  private readonly decided = new Map<string, Decision>();
  private readonly window: DeletionWindow;
  private readonly cluster: string;
  private readonly intent: (key: string) => Intent | undefined;
  private readonly onHeld: (key: string, message: string) => void;
  /** What the agent declared in its Hello; until then, nothing. */
  private features: ReadonlySet<string> = new Set();
  /** Held because the agent would misread the removal: key → the feature it lacks. */
  private readonly misread = new Map<string, string>();
  /** Works the agent last applied under an earlier registration of its cluster (its Hello), not given since. */
  private readonly earlier = new Set<string>();
  /** Held because the cluster registered again since the Work was applied (EARLIER_REGISTRATION_REASONS). */
  private readonly heldEarlier = new Set<string>();
  /** Removals waiting for a workload that refers to them to leave the cluster first. */
  private readonly waits = new DependentWaits();
  private readonly brakeKey: (key: string) => string;

  constructor(opts: {
    cluster: string;
    /** Why the Work goes, or undefined when its absence is no intent (the agent keeps it). */
    intent: (key: string) => Intent | undefined;
    budget?: DeletionBudget;
    /**
     * The cluster's window, kept by the hub across this cluster's streams (issue 37, item 6: a
     * window per stream let each reconnect release another share); default a window of its own.
     */
    window?: DeletionWindow;
    /** A deletion was held (once per key until it is sent, given back, or decided). */
    onHeld: (key: string, message: string) => void;
    /** The key a Work's deletion counts under in the window (default its own): Works that carry one object together count once. */
    brakeKey?: (key: string) => string;
    now?: () => number;
  }) {
    this.brakeKey = opts.brakeKey ?? ((key) => key);
    this.cluster = opts.cluster;
    this.intent = opts.intent;
    this.onHeld = opts.onHeld;
    this.window = opts.window ?? new DeletionWindow(opts.budget ?? DEFAULT_DELETION_BUDGET, opts.now);
  }

  /** The features the agent declared in its Hello. */
  agentDeclared(features: readonly string[]): void {
    this.features = new Set(features);
  }

  /** The removal features the agent lacks (AgentOutdated when any). */
  missingFeatures(): string[] {
    return REMOVAL_FEATURES.filter((f) => !this.features.has(f));
  }

  /** The agent holds this Work now (its Hello said so, or it was just sent: given again, it belongs to this registration). */
  holding(key: string): void {
    this.holds.add(key);
    this.held.delete(key);
    this.misread.delete(key);
    this.heldEarlier.delete(key);
    this.earlier.delete(key);
    this.decided.delete(key);
    this.waits.release(key);
    this.waits.unkeep(key);
  }

  /** The Works the agent's Hello says it applied under an earlier registration of the cluster. */
  registeredEarlier(keys: readonly string[]): void {
    this.earlier.clear();
    for (const k of keys) if (this.holds.has(k)) this.earlier.add(k);
  }

  /**
   * What to tell the agent about a Work the store lacks: a delete with its reason, or undefined
   * (no intent, so it keeps it; or held by the brake). Counted in the window when sent.
   */
  deleteFor(key: string): Intent | undefined {
    const intent = this.intent(key);
    if (intent === undefined) {
      this.held.delete(key);
      this.misread.delete(key);
      this.heldEarlier.delete(key);
      this.decided.delete(key);
      this.waits.release(key);
      return undefined;
    }
    let decision = this.decided.get(key);
    // A workload that refers to it is placed or still runs there: it goes first (waitingOn: judged
    // again once that removal is sent). A person's answer to the workload's held removal is its too
    // (decide); a workload a person kept keeps it; an approval given while the workload was held
    // waits again if the workload was given back since.
    const workload = intent.waitsFor;
    if (workload !== undefined && this.waits.isKept(workload)) decision = "reject";
    const approvalStale = decision === "approve" && workload !== undefined && this.holds.has(workload) && !this.decided.has(workload) && !this.held.has(workload);
    if (workload !== undefined && (decision === undefined || approvalStale) && this.waits.park(key, workload)) {
      this.decided.delete(key);
      return undefined;
    }
    this.waits.release(key);
    // Issue 37, item 7: a placement that no longer names a cluster that registered again since the
    // Work was applied there says nothing about the Work (the new Cluster may lack the labels an
    // admin set on the old one): held until a person decides, or the placement gives it again.
    if (decision === undefined && this.earlier.has(key) && EARLIER_REGISTRATION_REASONS.has(intent.reason)) {
      if (!this.held.has(key)) {
        this.held.set(key, intent.reason);
        this.heldEarlier.add(key);
        this.onHeld(key, this.heldMessage(key));
      }
      return undefined;
    }
    // No longer held for an earlier registration (given again, or now another reason): judged, and said, afresh.
    if (this.heldEarlier.delete(key)) this.held.delete(key);
    // An older agent is never sent a removal it would get wrong: held until it is upgraded, or a person approves.
    const lacks = decision === undefined ? misreadBy(this.features, key, intent) : undefined;
    if (lacks !== undefined) {
      if (!this.held.has(key)) {
        this.held.set(key, intent.reason);
        this.misread.set(key, lacks);
        this.onHeld(key, this.heldMessage(key));
      }
      return undefined;
    }
    // Nothing is destroyed when the objects stay, nor when the cluster itself is leaving (unjoin).
    const exempt = intent.preserve || intent.reason === "ClusterUnjoined" || decision !== undefined;
    if (!exempt && !this.window.allows(this.holds.size, this.brakeKey(key))) {
      if (!this.held.has(key)) {
        this.held.set(key, intent.reason);
        this.onHeld(key, this.heldMessage(key));
      }
      return undefined;
    }
    if (decision === undefined && !exempt) this.window.record(this.brakeKey(key));
    this.misread.delete(key);
    this.heldEarlier.delete(key);
    this.earlier.delete(key);
    this.holds.delete(key);
    this.held.delete(key);
    this.decided.delete(key);
    // Kept by a person: what waits for it is kept too.
    if (decision === "reject") this.waits.keep(key);
    const sent: Intent = { reason: intent.reason, preserve: intent.preserve, ...(intent.preserveUnknown === undefined ? {} : { preserveUnknown: intent.preserveUnknown }) };
    // Rejected: the objects stay in the member, released from Flotilla, so nothing waits on them.
    return decision === "reject" ? { ...sent, preserve: true } : sent;
  }

  /** Applies a person's decision to what is held now; returns the keys to judge again. */
  decide(decision: Decision): string[] {
    // With them, the removals waiting for one of them to go first, through others too (a dependency after its workload).
    const keys = [...new Set([...this.held.keys(), ...this.waits.behind(this.held.keys())])];
    for (const k of keys) this.decided.set(k, decision);
    if (decision === "approve") this.window.reset();
    return keys;
  }

  /** The removals waiting for this Work to go first: judged again once its removal is sent. */
  waitingOn(key: string): string[] {
    return this.waits.waitingOn(key);
  }

  /** Whether a removal waits for a workload that refers to it to go first, and which. */
  waitsFor(key: string): string | undefined {
    return this.waits.of(key);
  }

  /** Every removal that waits for a workload (judged again on a timer: deletion-intent.ts DEPENDENT_RECHECK_MS). */
  waiting(): string[] {
    return this.waits.keys();
  }

  /** Whether the workload still stands in its dependencies' way here: the agent holds it, or a person kept it (released in the member). */
  inTheWay(key: string): boolean {
    return this.holds.has(key) || this.waits.isKept(key);
  }

  isHeld(key: string): boolean {
    return this.held.has(key);
  }

  get heldCount(): number {
    return this.held.size;
  }

  /** What a held deletion says on its binding (the same for every key of a cluster and cause, so Events coalesce). */
  heldMessage(key?: string): string {
    if (key !== undefined && this.heldEarlier.has(key)) {
      return `held: ${this.cluster} registered again since this Work was applied there, and its placement no longer names it (did the new Cluster lose labels an admin had set?); set them again, or send the removal with \`flotillactl deletions approve ${this.cluster}\`, or keep the objects with \`flotillactl deletions reject ${this.cluster}\``;
    }
    const lacks = key === undefined ? undefined : this.misread.get(key);
    if (lacks !== undefined) {
      return `held: the agent of ${this.cluster} is outdated (it lacks ${lacks}) and would get this removal wrong; upgrade the agent, or send it anyway with \`flotillactl deletions approve ${this.cluster}\``;
    }
    return `held by the deletion brake: more deletions on ${this.cluster} within the window than its budget allows; approve with \`flotillactl deletions approve ${this.cluster}\` or keep the objects with \`flotillactl deletions reject ${this.cluster}\``;
  }
}
