// flotillactl's "Rollouts" commands: a template's progressive rollout, read and steered.
import type { FlagSpec } from "../../shared/flags.ts";
import { groupFlag, namespaceFlag, outputFlag } from "./command-flags.ts";
import { type Command, templateRef } from "./command.ts";
import { call } from "./connection.ts";
import { structured } from "./format.ts";
import { rolloutChangeLine, rolloutTable } from "./rollout-view.ts";

export const rolloutCommands: Record<string, Command> = {
  "rollout status": {
    usage: "rollout status <kind>/<name> [-n ns] [-o table|json|yaml]",
    positionals: 1,
    summary: "a template's progressive rollout (its policy has spec.rollout): revision, stable revision, phase and what it waits for, then each cluster by group: the revision it is told to run, its phase and since when",
    flags: [namespaceFlag, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    async run({ client, args, flags, format, timeoutMs }) {
      const res = await call(client, client.rollout, { template: templateRef(args[0], flags), verb: "status", group: "" }, timeoutMs);
      return format === "table" ? rolloutTable(res, Date.now()) : structured(res, format);
    },
  },
  ...rolloutCommand("pause", "pauses a template's rollout: no more clusters start until resume (each keeps the revision it is told)"),
  ...rolloutCommand("resume", "resumes a paused rollout (failures so far are accepted; a failed rollback is tried again)"),
  ...rolloutCommand("approve", "gives the approval the rollout waits for (BeforeGroup/AfterGroup), or with --group that group's ahead of time", [groupFlag]),
  ...rolloutCommand("abort", "stops a rollout for good: every cluster keeps the revision it runs until the template changes"),
  ...rolloutCommand("undo", "rolls every cluster the rollout reached back to the stable revision (the last that succeeded everywhere)"),
};

/** `rollout <verb>`: a command on a template's rollout, printed as one line saying what changed. */
function rolloutCommand(verb: "pause" | "resume" | "approve" | "abort" | "undo", summary: string, extra: FlagSpec[] = []): Record<string, Command> {
  const command: Command = {
    usage: `rollout ${verb} <kind>/<name> [-n ns]${verb === "approve" ? " [--group G]" : ""}`,
    positionals: 1,
    summary,
    flags: [namespaceFlag, ...extra],
    formats: ["table"],
    async run({ client, args, flags, timeoutMs }) {
      const res = await call(client, client.rollout, { template: templateRef(args[0], flags), verb, group: String(flags.group ?? "") }, timeoutMs);
      return rolloutChangeLine(res);
    },
  };
  return { [`rollout ${verb}`]: command };
}

