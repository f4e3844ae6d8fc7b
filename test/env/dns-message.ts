// The DNS wire format (RFC 1035 §4), as far as a test needs to read a whole answer section:
// node:dns returns only the final addresses of an A question, not the CNAME chain that led there.

/** Record types by number, for the ones tests meet. */
const TYPES: Record<number, string> = { 1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 16: "TXT", 28: "AAAA", 33: "SRV", 255: "ANY" };
const TYPE_NUMBERS = Object.fromEntries(Object.entries(TYPES).map(([n, t]) => [t, Number(n)]));
const RCODES = ["NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"];

export interface DnsRecord {
  /** Owner name, without the trailing dot. */
  name: string;
  type: string;
  ttl: number;
  /** A: the address; CNAME/NS: the name without the trailing dot; others: "". */
  data: string;
}

export interface DnsResponse {
  id: number;
  rcode: string;
  answers: DnsRecord[];
}

/** A query for one name and type, recursion desired. */
export function encodeQuery(id: number, name: string, type: string): Buffer {
  const qtype = TYPE_NUMBERS[type];
  if (qtype === undefined) throw new Error(`unknown DNS record type ${type}`);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2); // RD
  header.writeUInt16BE(1, 4); // QDCOUNT
  const labels = name.replace(/\.$/, "").split(".").filter((l) => l !== "");
  const qname = Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([Buffer.byteLength(l)]), Buffer.from(l)])), Buffer.from([0])]);
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(qtype, 0);
  tail.writeUInt16BE(1, 2); // IN
  return Buffer.concat([header, qname, tail]);
}

/** Reads the header and the answer section of a response. */
export function decodeResponse(msg: Buffer): DnsResponse {
  if (msg.length < 12) throw new Error(`DNS response of ${msg.length} bytes is shorter than its header`);
  const id = msg.readUInt16BE(0);
  const rcodeNumber = msg.readUInt16BE(2) & 0x0f;
  const qdcount = msg.readUInt16BE(4);
  const ancount = msg.readUInt16BE(6);
  let offset = 12;
  for (let i = 0; i < qdcount; i++) offset = readName(msg, offset).next + 4;
  const answers: DnsRecord[] = [];
  for (let i = 0; i < ancount; i++) {
    const owner = readName(msg, offset);
    offset = owner.next;
    const typeNumber = msg.readUInt16BE(offset);
    const ttl = msg.readUInt32BE(offset + 4);
    const rdlength = msg.readUInt16BE(offset + 8);
    const rdata = offset + 10;
    const type = TYPES[typeNumber] ?? `TYPE${typeNumber}`;
    let data = "";
    if (type === "A") data = [...msg.subarray(rdata, rdata + 4)].join(".");
    else if (type === "CNAME" || type === "NS") data = readName(msg, rdata).name;
    answers.push({ name: owner.name, type, ttl, data });
    offset = rdata + rdlength;
  }
  return { id, rcode: RCODES[rcodeNumber] ?? `RCODE${rcodeNumber}`, answers };
}

/** A possibly compressed name at offset; `next` is the offset after it where it started. */
function readName(msg: Buffer, start: number): { name: string; next: number } {
  const labels: string[] = [];
  let offset = start;
  let next: number | undefined;
  for (let jumps = 0; ; ) {
    if (offset >= msg.length) throw new Error("DNS name runs past the end of the message");
    const len = msg.readUInt8(offset);
    if (len === 0) {
      next ??= offset + 1;
      break;
    }
    if ((len & 0xc0) === 0xc0) {
      if (++jumps > 32) throw new Error("DNS name compression loops");
      next ??= offset + 2;
      offset = msg.readUInt16BE(offset) & 0x3fff;
      continue;
    }
    labels.push(msg.toString("latin1", offset + 1, offset + 1 + len));
    offset += 1 + len;
  }
  return { name: labels.join("."), next };
}
