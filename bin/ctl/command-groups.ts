// flotillactl's command table, group by group: the help's overview lists them in this order, and
// every command is in exactly one group (command-groups.test.ts).
import type { Command } from "./command.ts";
import { fleetCommands } from "./fleet-commands.ts";
import type { CommandGroup } from "./help.ts";
import { memberCommands } from "./member-commands.ts";
import { migrationCommands, otherCommands } from "./other-commands.ts";
import { rolloutCommands } from "./rollout-commands.ts";
import { templateCommands } from "./template-commands.ts";

export const commandGroups: readonly CommandGroup[] = [
  { title: "Fleet and clusters", commands: fleetCommands },
  { title: "Templates and policies", commands: templateCommands },
  { title: "Rollouts", commands: rolloutCommands },
  { title: "Members (through the control plane)", commands: memberCommands },
  { title: "Migration", commands: migrationCommands },
  { title: "Other", commands: otherCommands },
];

/** Every command by its name (one or two words), from the groups. */
export const groupedCommands: Record<string, Command> = Object.assign({}, ...commandGroups.map((g) => g.commands)) as Record<string, Command>;
