// Every native interpreter sample case, for the Karmada parity test and the oracle.
import { appsCases } from "./apps.fixtures.ts";
import type { NativeCase } from "./native.fixtures.ts";

export const allCases: readonly NativeCase[] = [...appsCases];

/** A case's unique title: kind, operation, behaviour. */
export function caseTitle(c: NativeCase): string {
  return `${c.object.kind} ${c.op}: ${c.name}`;
}
