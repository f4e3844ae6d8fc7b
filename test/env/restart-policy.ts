// When a supervised process (a control-plane replica, an agent) is started again, and after how
// long: kubelet's restartPolicy with its crash-loop back-off, scaled down for a local fleet. Pure,
// so the decisions are a table test (restart-policy.test.ts); supervisor.ts acts on them.
import type { ProcessExit } from "./managed-process.ts";

export interface RestartPolicy {
  /**
   * "always": every exit is restarted (kubelet's restartPolicy Always; the chaos run, whose
   * injector holds what it kills). "own-exit": only a process that ended by itself, i.e. with a
   * non-zero exit code or a crash signal; an exit 0 (a clean stop: SIGTERM drains and exits 0)
   * or a stop signal sent from outside (kill -9, kill, Ctrl-C) is what a person did on purpose, so
   * the process stays down until they start it again (`up`).
   */
  when: "always" | "own-exit";
  /** The first delay, doubled after each restart that did not last… */
  initialMs: number;
  /** …up to this… */
  maxMs: number;
  /** …and back to initialMs once a run lasted this long. */
  resetAfterMs: number;
}

/** 1 s doubling to 30 s, reset after a minute up: kubelet's 10 s → 5 min, reset after 10 min, scaled down. */
export const DEFAULT_BACKOFF: Omit<RestartPolicy, "when"> = { initialMs: 1_000, maxMs: 30_000, resetAfterMs: 60_000 };

/** Signals a person (or a tool acting for one) sends to stop a process; any other signal is a crash. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ["SIGKILL", "SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"];

export type RestartDecision = { restart: true; delayMs: number } | { restart: false; why: string };

/**
 * Whether to start a process again after `exit`, and after how long: ranForMs is how long the run
 * that ended lasted, previousDelayMs the delay before it (undefined when it was not a restart).
 */
export function restartDecision(policy: RestartPolicy, exit: ProcessExit, ranForMs: number, previousDelayMs: number | undefined): RestartDecision {
  if (policy.when === "own-exit") {
    if (exit.signal !== null && STOP_SIGNALS.includes(exit.signal)) return { restart: false, why: `stopped by ${exit.signal} from outside` };
    if (exit.signal === null && exit.code === 0) return { restart: false, why: "stopped cleanly (code 0)" };
  }
  if (previousDelayMs === undefined || ranForMs >= policy.resetAfterMs) return { restart: true, delayMs: policy.initialMs };
  return { restart: true, delayMs: Math.min(policy.maxMs, Math.max(policy.initialMs, previousDelayMs * 2)) };
}

/** "code 1" or "signal SIGABRT". */
export function describeExit(exit: ProcessExit): string {
  return exit.signal === null ? `code ${exit.code}` : `signal ${exit.signal}`;
}

/** 1500 → "1.5 s", 30000 → "30 s". */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
