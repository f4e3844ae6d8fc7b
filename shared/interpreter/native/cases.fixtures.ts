// Every native interpreter sample case, for the Karmada parity test and the oracle.
import { appsCases } from "./apps.fixtures.ts";
import { batchCases } from "./batch.fixtures.ts";
import { coreCases } from "./core.fixtures.ts";
import type { NativeCase } from "./native.fixtures.ts";
import { podTemplateCases } from "./pod-template.fixtures.ts";
import { policyCases } from "./policy.fixtures.ts";

export const allCases: readonly NativeCase[] = [...appsCases, ...batchCases, ...coreCases, ...policyCases, ...podTemplateCases];

/** A case's unique title: kind, operation, behaviour. */
export function caseTitle(c: NativeCase): string {
  return `${c.object.kind} ${c.op}: ${c.name}`;
}
