// `flotillactl logs <kind>/<name>`: the logs of a workload's pods in every member it runs in (or
// one pod's), read through the member API, each line prefixed `[<cluster> <pod>/<container>] `.
import { FlagError } from "../../shared/flags.ts";
import type { CommandContext } from "./command.ts";
import { fanOut, type MemberApi } from "./member-api.ts";
import { type MemberObject, readWorkload, workloadTargets } from "./member-targets.ts";
import { containersToRead, LinePrefixer, type LogOptions, logPath } from "./member-workload.ts";

export interface LogStream {
  cluster: string;
  pod: string;
  container: string;
}

/** Without -f, this many logs are read at once (each is printed whole, in order). */
const READ_AT_ONCE = 8;

export async function runMemberLogs(ctx: CommandContext): Promise<string> {
  const { flags, warn } = ctx;
  const options: LogOptions = { follow: flags.follow === true, tail: Number(flags.tail ?? -1), sinceMs: Number(flags.since ?? 0), timestamps: flags.timestamps === true };
  const maxFollowed = Number(flags["max-log-requests"] ?? 10);
  if (options.follow && !(maxFollowed > 0)) throw new FlagError("--max-log-requests must be above 0");
  const container = typeof flags.container === "string" && flags.container !== "" ? flags.container : undefined;
  const t = await workloadTargets(ctx);
  try {
    const found = await fanOut(t.clusters, async (cluster) => {
      const { pods } = await readWorkload(t, cluster);
      if (pods.length === 0) warn(`cluster ${cluster}: no pods of ${t.kind}/${t.name} in ${t.namespace}`);
      return pods.flatMap((pod) => streamsOf(cluster, pod, container, warn));
    }, warn);
    const streams = found.flatMap((f) => f.value);
    if (streams.length === 0) throw new Error(`no container of ${t.kind}/${t.name} to read in ${t.clusters.join(", ")}`);
    const label = (s: LogStream) => `cluster ${s.cluster}: ${s.pod}/${s.container}`;
    const read = (s: LogStream, write: (text: string) => void) => readLog(t.api, t.namespace, s, options, write);
    if (options.follow) {
      for (const cluster of t.clusters) {
        const n = streams.filter((s) => s.cluster === cluster).length;
        if (n > maxFollowed) throw new Error(`cluster ${cluster}: you are attempting to follow ${n} log streams, but at most ${maxFollowed} are followed at once: raise --max-log-requests (the member API also limits what one member serves at once) or name a container with -c`);
      }
      await fanOut(streams, (s) => read(s, (text) => process.stdout.write(text)), warn, { label, noun: "log streams", concurrency: streams.length });
      return "";
    }
    // Read a few at once, printed in order when all are read: each container's lines stay together.
    const texts = await fanOut(
      streams,
      async (s) => {
        let text = "";
        await read(s, (more) => (text += more));
        return text;
      },
      warn,
      { label, noun: "log streams", concurrency: READ_AT_ONCE },
    );
    return texts.map((x) => x.value).join("").replace(/\n$/, "");
  } finally {
    t.api.close();
  }
}

/** The log streams of one pod: each container to read, or a line on stderr when -c names none of its. */
function streamsOf(cluster: string, pod: MemberObject, container: string | undefined, warn: (s: string) => void): LogStream[] {
  const name = pod.metadata?.name ?? "";
  const containers = containersToRead(pod, container);
  if ("error" in containers) {
    warn(`cluster ${cluster}: pod ${name}: ${containers.error}`);
    return [];
  }
  return containers.map((c) => ({ cluster, pod: name, container: c }));
}

/** Reads one container's log, writing whole prefixed lines as they come. */
export async function readLog(api: MemberApi, namespace: string, s: LogStream, o: LogOptions, write: (text: string) => void): Promise<void> {
  const res = await api.stream(s.cluster, logPath(namespace, s.pod, s.container, o));
  const lines = new LinePrefixer(`[${s.cluster} ${s.pod}/${s.container}] `);
  res.setEncoding("utf8");
  await new Promise<void>((resolve, reject) => {
    res.on("data", (chunk: string) => {
      const out = lines.push(chunk);
      if (out !== "") write(out);
    });
    res.on("end", () => {
      const out = lines.end();
      if (out !== "") write(out);
      resolve();
    });
    res.on("error", reject);
    res.on("aborted", () => reject(new Error("the stream broke off")));
  });
}
