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

/** Runs a command's main and exits with its code; a FlagError is bad usage (2), anything else failure (1). */
export function runMain(program: string, main: (argv: string[]) => Promise<number>, usageHint: () => string): void {
  main(process.argv.slice(2)).then(
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
