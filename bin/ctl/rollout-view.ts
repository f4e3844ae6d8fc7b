// How flotillactl prints a template's progressive rollout (`flotillactl rollout ...`): a header
// line, then a row per cluster in rollout order. Pure.
import type { RolloutResponse } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import { age, table, templateTitle } from "./format.ts";

/** A revision as the tables show it: its first 12 characters, as `get works` shows hashes. */
const short = (revision: string) => (revision === "" ? "-" : revision.slice(0, 12));

/** The line above the table: where the rollout is and what it waits for. */
export function rolloutHeader(res: RolloutResponse): string {
  const title = templateTitle(res.template, "the template");
  if (res.phase === "") return `${title}: ${res.message || "no rollout state yet"}`;
  const parts = [`revision ${short(res.revision)} (stable ${short(res.stableRevision)})`, res.phase];
  if (res.paused && res.phase !== "Paused") parts.push("paused");
  if (res.waitingFor !== "") parts.push(`waiting for ${res.waitingFor}`);
  return `${title}: ${parts.join(", ")}${res.message === "" ? "" : `: ${res.message}`}`;
}

/** `rollout status`: the header, then GROUP CLUSTER REVISION PHASE SINCE MESSAGE in rollout order. */
export function rolloutTable(res: RolloutResponse, now: number): string {
  const rows = res.groups.flatMap((g) => g.clusters.map((c) => [g.name || "-", c.name, short(c.revision), c.phase || "-", age(c.since, now), c.message || "-"]));
  return `${rolloutHeader(res)}\n${table(["group", "cluster", "revision", "phase", "since", "message"], rows)}`;
}

/** A command's one line: what it changed. */
export function rolloutChangeLine(res: RolloutResponse): string {
  return `${templateTitle(res.template, "the template")}: ${res.change}`;
}
