// Where flotillactl finds the Admin API and its credentials: flags, then environment, then the
// local fleet's state directory (`npm run up` writes the endpoint and an admin certificate there).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type CallOptions, credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import { AdminClient } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import type { FlagSpec, FlagValues } from "../../shared/flags.ts";

export const connectionFlags: FlagSpec[] = [
  { name: "server", type: "string", env: "FLOTILLA_SERVER", help: "the control plane's gRPC address, host:port (default: read from <state-dir>/flotilla-certs/admin-endpoint)" },
  { name: "server-name", type: "string", env: "FLOTILLA_SERVER_NAME", help: "the name the control plane's certificate is checked against (default: the host of --server; localhost for the local fleet's admin-endpoint)" },
  { name: "ca-cert", type: "string", env: "FLOTILLA_CA_CERT", help: "CA certificate that signed the control plane's certificate (default: <state-dir>/flotilla-certs/ca.crt)" },
  { name: "cert", type: "string", env: "FLOTILLA_ADMIN_CERT", help: "admin client certificate, from `flotilla certs admin` (default: <state-dir>/flotilla-certs/admin.crt)" },
  { name: "key", type: "string", env: "FLOTILLA_ADMIN_KEY", help: "its private key (default: <state-dir>/flotilla-certs/admin.key)" },
  { name: "state-dir", type: "string", env: "FLOTILLA_STATE_DIR", default: ".flotilla", help: "the local fleet's state directory (`npm run up`)" },
  { name: "timeout", type: "duration", default: "10s", help: "how long one call may take" },
];

/** The files and address a connection uses. */
export interface ConnectionPlan {
  server: string | { file: string };
  /** The TLS name to verify; undefined means the host of the server address. */
  serverName: string | undefined;
  caCert: string;
  cert: string;
  key: string;
}

/** Pure: which address and files to use, from the flags (already merged with the environment). */
export function planConnection(flags: FlagValues): ConnectionPlan {
  const certs = join(String(flags["state-dir"] ?? ".flotilla"), "flotilla-certs");
  const pick = (name: string, file: string) => (typeof flags[name] === "string" && flags[name] !== "" ? (flags[name] as string) : join(certs, file));
  const explicitServer = typeof flags.server === "string" && flags.server !== "";
  const named = typeof flags["server-name"] === "string" && flags["server-name"] !== "";
  return {
    server: explicitServer ? (flags.server as string) : { file: join(certs, "admin-endpoint") },
    // The local fleet's endpoint is 127.0.0.1, and a TLS server name cannot be an IP address:
    // its certificate also names localhost.
    serverName: named ? (flags["server-name"] as string) : explicitServer ? undefined : "localhost",
    caCert: pick("ca-cert", "ca.crt"),
    cert: pick("cert", "admin.crt"),
    key: pick("key", "admin.key"),
  };
}

/** What a connection is made with: the Admin API's address, the PEM files' contents and the TLS name to verify. */
export interface Credentials {
  server: string;
  /** undefined: the host of the address dialled. */
  serverName: string | undefined;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

/** The connection's address and files, read; or an error that says which file is missing and how to get it. */
export async function loadCredentials(flags: FlagValues): Promise<Credentials> {
  const plan = planConnection(flags);
  const read = (path: string, what: string) =>
    readFile(path).catch(() => {
      throw new Error(`cannot read ${what} ${path}: start the local fleet with \`npm run up\`, or pass --server, --ca-cert, --cert and --key`);
    });
  const server = typeof plan.server === "string" ? plan.server : (await read(plan.server.file, "the control plane's address in")).toString("utf8").trim();
  const [ca, cert, key] = await Promise.all([read(plan.caCert, "the CA certificate"), read(plan.cert, "the admin certificate"), read(plan.key, "the admin key")]);
  return { server, serverName: plan.serverName, ca, cert, key };
}

/** An Admin client, or an error that says which file is missing and how to get it. */
export async function connect(flags: FlagValues): Promise<{ client: AdminClient; server: string; credentials: Credentials; another(): AdminClient }> {
  const loaded = await loadCredentials(flags);
  const { server, serverName, ca, cert, key } = loaded;
  const creds = credentials.createSsl(ca, key, cert);
  const named = serverName === undefined ? {} : { "grpc.ssl_target_name_override": serverName };
  return {
    client: new AdminClient(server, creds, named),
    server,
    credentials: loaded,
    // A client on a connection of its own (no shared subchannel): behind a Service it may reach another replica.
    another: () => new AdminClient(server, creds, { ...named, "grpc.use_local_subchannel_pool": 1 }),
  };
}

/** Calls a unary Admin method with a deadline; rejects with the server's message. */
export function call<Req, Res>(
  client: AdminClient,
  method: (req: Req, metadata: Metadata, options: Partial<CallOptions>, cb: (err: ServiceError | null, res: Res) => void) => unknown,
  req: Req,
  timeoutMs: number,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    method.call(client, req, new Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}
