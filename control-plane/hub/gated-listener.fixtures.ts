// The gated listener's tests: the hub's serving credentials under a test CA, and gated listeners
// on 127.0.0.1 for a gRPC server, each closed by closeAll().
import { type Server, ServerCredentials } from "@grpc/grpc-js";
import { silentLogger } from "../../shared/logger.ts";
import { issueCertificate, type KeyPair } from "../../shared/pki.ts";
import type { AgentAdmissions } from "./agent-admissions.ts";
import { type GatedListener, listenGated } from "./gated-listener.ts";

/** mTLS serving credentials for "localhost", signed by ca, that ask clients for certificates of ca. */
export async function hubCredentials(ca: KeyPair): Promise<ServerCredentials> {
  const serving = await issueCertificate(ca, { commonName: "hub", dnsNames: ["localhost"], usage: "server" });
  return ServerCredentials.createSsl(Buffer.from(ca.certPem), [{ cert_chain: Buffer.from(serving.certPem), private_key: Buffer.from(serving.keyPem) }], true);
}

/** Gated listeners for one server: listen() starts one and answers its port; last() is the newest. */
export function gatedListeners(server: () => Server, credentials: () => ServerCredentials) {
  const all: GatedListener[] = [];
  return {
    async listen(admissions: AgentAdmissions): Promise<number> {
      const l = await listenGated({ server: server(), credentials: credentials(), listen: "127.0.0.1:0", admissions, log: silentLogger() });
      all.push(l);
      return l.port;
    },
    last: () => all.at(-1) as GatedListener,
    closeAll: () => {
      for (const l of all) l.close();
    },
  };
}
