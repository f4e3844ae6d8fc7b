// What both commands (`flotilla`, `flotillactl`) do before and after their work: pick the
// one- or two-word subcommand, print usage, and turn the outcome into an exit code
// (0 success, 1 failure, 2 bad usage).
import { FlagError } from "../shared/flags.ts";

/** The subcommand argv names (two words first, e.g. `certs init`), with the arguments after it; undefined for help. */
export function lookupCommand<C>(commands: Record<string, C>, argv: string[]): { name: string; command: C; rest: string[] } | undefined {
  if (argv.length === 0 || ["help", "--help", "-h"].includes(argv[0] as string)) return undefined;
  const two = `${argv[0]} ${argv[1] ?? ""}`;
  const [name, rest] = Object.hasOwn(commands, two) ? [two, argv.slice(2)] : [argv[0] as string, argv.slice(1)];
  if (!Object.hasOwn(commands, name)) throw new FlagError(`unknown command ${JSON.stringify(argv.slice(0, 2).join(" "))}`);
  return { name, command: commands[name] as C, rest };
}

/**
 * Runs the subcommand argv names and exits: its output on stdout and 0; usage for help (0, or 2
 * when no command is given); a FlagError is bad usage (2, with `usageHint`), anything else 1.
 */
export function runCommandLine<C>(program: string, commands: Record<string, C>, usage: () => string, run: (command: C, rest: string[]) => Promise<string | void>, usageHint: () => string = usage): void {
  const argv = process.argv.slice(2);
  const main = async (): Promise<number> => {
    const found = lookupCommand(commands, argv);
    if (found === undefined) {
      console.log(usage());
      return argv.length === 0 ? 2 : 0;
    }
    const out = await run(found.command, found.rest);
    if (out) console.log(out);
    return 0;
  };
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof FlagError) {
        console.error(`${program}: ${message}\n\n${usageHint()}`);
        process.exit(2);
      }
      console.error(`${program}: ${message}`);
      process.exit(1);
    },
  );
}
