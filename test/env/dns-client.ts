// Asking a test DNS server ("127.0.0.1:<port>") what a client would be told.
import { createSocket } from "node:dgram";
import { Resolver } from "node:dns/promises";
import { decodeResponse, type DnsResponse, encodeQuery } from "./dns-message.ts";

/**
 * A name's A addresses (through node:dns, following CNAMEs as any client does) or its CNAME
 * target, sorted; [] when the name does not exist (NXDOMAIN) or has no such record. A fresh
 * resolver per question, so no answer comes from a cache.
 *
 * The CNAME is read from the answer to an A question, where a stub resolver sees it: CoreDNS's
 * etcd plugin answers a CNAME-type question only from a record stored at the name's exact key,
 * and ExternalDNS stores every target under a random sub-key, so `dig <name> CNAME` is empty
 * while `dig <name> A` returns the chain.
 */
export async function resolveAt(server: string, name: string, type: "A" | "CNAME"): Promise<string[]> {
  if (type === "CNAME") {
    const answer = await queryAt(server, name, "A");
    const owner = name.replace(/\.$/, "").toLowerCase();
    return answer.answers.filter((r) => r.type === "CNAME" && r.name.toLowerCase() === owner).map((r) => r.data).sort();
  }
  const resolver = new Resolver({ timeout: 1_000, tries: 2 });
  resolver.setServers([server]);
  try {
    return (await resolver.resolve4(name)).sort();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOTFOUND" || code === "ENODATA") return [];
    throw err;
  }
}

/**
 * One question over UDP, the whole answer section back (CNAMEs and all, in the server's order):
 * e.g. an A question for a zone name that points up reads
 * `[{ name, type: "CNAME", data: region name }, { name: region name, type: "A", data }, …]`.
 */
export function queryAt(server: string, name: string, type: string, timeoutMs = 2_000): Promise<DnsResponse> {
  const [host = "127.0.0.1", port = "53"] = server.split(":");
  const id = Math.floor(Math.random() * 0x10000);
  const socket = createSocket("udp4");
  return new Promise<DnsResponse>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no DNS answer from ${server} for ${type} ${name} within ${timeoutMs} ms`)), timeoutMs);
    socket.on("error", reject);
    socket.on("message", (msg) => {
      try {
        const response = decodeResponse(msg);
        if (response.id !== id) return;
        clearTimeout(timer);
        resolve(response);
      } catch (err) {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    socket.send(encodeQuery(id, name, type), Number(port), host);
  }).finally(() => socket.close());
}
