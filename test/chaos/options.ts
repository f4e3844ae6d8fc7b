// The flags of `npm run chaos`.
import { parseDuration } from "../../shared/duration.ts";

export interface ChaosOptions {
  /** How long churn and faults go on, before the convergence wait. */
  durationMs: number;
  seed: number;
  members: number;
  /** Where the JSON report goes, if anywhere. */
  json?: string;
  /** Where the control plane's and agents' logs are copied when the run fails. */
  keepLogs?: string;
  /** Also restore the control cluster's etcd from a snapshot a minute old, once per round of faults. */
  etcdRestore?: boolean;
  /** --help: print the usage and run nothing. */
  help?: boolean;
}

export class ChaosUsageError extends Error {
  override name = "ChaosUsageError";
}

export const chaosUsage = `usage: npm run chaos -- [--duration D] [--seed N] [--members N] [--json FILE] [--keep-logs DIR] [--etcd-restore]

  --duration D   how long churn and faults go on, e.g. 2m, 10m (default 2m; at least 30s)
  --seed N       seed of the churn and the faults, 0 … 4294967295 (default: from the clock;
                 the summary prints it, and the same seed repeats the same run)
  --members N    member clusters, 3 … 6 (default 3)
  --json FILE    also write the report as JSON to FILE
  --keep-logs DIR  when the run fails, copy the control plane's and agents' logs to DIR
  --etcd-restore also restore the control cluster's etcd from a snapshot taken a minute earlier,
                 once per round (the minute between counts as that fault: a short run meets
                 fewer of the others)
  --help         print this text

faults, one every 4 to 9 s, every kind in each seeded round: kill -9 the leader or the standby
replica; kill -9 or SIGSTOP an agent; kill -9 a member's kube-apiserver; kill -9 the control
cluster's kube-apiserver and etcd; delete a ResourceBinding; delete a PropagationPolicy and create
it again; delete the chaos namespace in a member; a member registers again as a new Cluster.
Beside them: Cluster labels set and removed, users' HPAs in members. See docs/development/chaos.md.`;

/** Parses the flags; `now` seeds a run that names no seed. */
export function parseChaosOptions(args: string[], now: number): ChaosOptions {
  const o: ChaosOptions = { durationMs: 120_000, seed: now % 4294967296, members: 3 };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const eq = arg.indexOf("=");
    const [flag, inline] = eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? args[++i];
      if (v === undefined || v === "") throw new ChaosUsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case "--duration": {
        const v = value();
        let ms: number;
        try {
          ms = parseDuration(v);
        } catch (err) {
          throw new ChaosUsageError(`--duration: ${err instanceof Error ? err.message : String(err)}`);
        }
        if (ms < 30_000) throw new ChaosUsageError(`--duration must be at least 30s, not ${v}`);
        o.durationMs = ms;
        break;
      }
      case "--seed":
        o.seed = wholeNumber(flag, value(), 0, 4294967295);
        break;
      case "--members":
        o.members = wholeNumber(flag, value(), 3, 6);
        break;
      case "--json":
        o.json = value();
        break;
      case "--keep-logs":
        o.keepLogs = value();
        break;
      case "--etcd-restore":
        o.etcdRestore = true;
        break;
      case "--help":
      case "-h":
        o.help = true;
        break;
      default:
        throw new ChaosUsageError(`unknown flag ${JSON.stringify(arg)}`);
    }
  }
  return o;
}

function wholeNumber(flag: string, raw: string, lo: number, hi: number): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < lo || n > hi) throw new ChaosUsageError(`${flag} must be a whole number from ${lo} to ${hi}, not ${JSON.stringify(raw)}`);
  return n;
}
