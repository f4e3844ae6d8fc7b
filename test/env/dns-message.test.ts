import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeResponse, encodeQuery } from "./dns-message.ts";

/** A record in wire form: owner as a pointer or labels, then type, class IN, ttl and rdata. */
function record(owner: Buffer, type: number, ttl: number, rdata: Buffer): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(1, 2);
  fixed.writeUInt32BE(ttl, 4);
  fixed.writeUInt16BE(rdata.length, 8);
  return Buffer.concat([owner, fixed, rdata]);
}
const pointer = (offset: number) => Buffer.from([0xc0 | (offset >> 8), offset & 0xff]);
const labels = (...ls: string[]) => Buffer.concat([...ls.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])), Buffer.from([0])]);

describe("encodeQuery", () => {
  it("writes the id, recursion desired, one question of the type, class IN", () => {
    const q = encodeQuery(0x1234, "www.example.com.", "A");
    assert.equal(q.toString("hex"), "123401000001000000000000" + "03777777076578616d706c6503636f6d00" + "00010001");
    assert.equal(encodeQuery(1, "example.com", "CNAME").subarray(-4).toString("hex"), "00050001");
    assert.throws(() => encodeQuery(1, "x", "BOGUS"), /unknown DNS record type BOGUS/);
  });
});

describe("decodeResponse", () => {
  it("reads a CNAME chain and its addresses, following compressed names", () => {
    const query = encodeQuery(7, "www.example.com", "A");
    const header = Buffer.from(query.subarray(0, 12));
    header.writeUInt16BE(0x8180, 2); // QR, RD, RA, NOERROR
    header.writeUInt16BE(3, 6); // ANCOUNT
    const question = query.subarray(12);
    // The CNAME's target "web.demo" + pointer to "example.com" inside the question (offset 16).
    const cnameAt = 12 + question.length;
    const target = Buffer.concat([Buffer.from([3]), Buffer.from("web"), Buffer.from([4]), Buffer.from("demo"), pointer(16)]);
    const cname = record(pointer(12), 5, 30, target);
    const targetAt = cnameAt + 2 + 10; // the rdata of the CNAME record
    const a1 = record(pointer(targetAt), 1, 30, Buffer.from([127, 0, 101, 1]));
    const a2 = record(pointer(targetAt), 1, 30, Buffer.from([127, 0, 102, 1]));
    const r = decodeResponse(Buffer.concat([header, question, cname, a1, a2]));
    assert.deepEqual(r, {
      id: 7,
      rcode: "NOERROR",
      answers: [
        { name: "www.example.com", type: "CNAME", ttl: 30, data: "web.demo.example.com" },
        { name: "web.demo.example.com", type: "A", ttl: 30, data: "127.0.101.1" },
        { name: "web.demo.example.com", type: "A", ttl: 30, data: "127.0.102.1" },
      ],
    });
  });

  it("reads NXDOMAIN with no answers, and names other types without reading their data", () => {
    const header = Buffer.alloc(12);
    header.writeUInt16BE(0x8183, 2);
    assert.deepEqual(decodeResponse(header), { id: 0, rcode: "NXDOMAIN", answers: [] });
    header.writeUInt16BE(1, 6);
    const txt = record(labels("t", "example"), 16, 5, Buffer.from([2, 104, 105]));
    assert.deepEqual(decodeResponse(Buffer.concat([header, txt])).answers, [{ name: "t.example", type: "TXT", ttl: 5, data: "" }]);
  });

  it("refuses a message shorter than a header, and a name that points at itself", () => {
    assert.throws(() => decodeResponse(Buffer.alloc(5)), /shorter than its header/);
    const header = Buffer.alloc(12);
    header.writeUInt16BE(1, 6);
    assert.throws(() => decodeResponse(Buffer.concat([header, pointer(12)])), /compression loops/);
  });
});
