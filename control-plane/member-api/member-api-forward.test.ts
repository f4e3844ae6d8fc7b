import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { forwardedCaller } from "./member-api-forward.ts";
import { peerMemberApiAddress } from "../clusters/index.ts";

describe("forwardedCaller", () => {
  const cases: [string | string[] | undefined, { user: string; role: string } | undefined][] = [
    ["admin:alice", { user: "alice", role: "admin" }],
    ["viewer:vera%40example.com", { user: "vera@example.com", role: "viewer" }],
    ["viewer:a%3Ab", { user: "a:b", role: "viewer" }],
    ["root:alice", undefined],
    ["admin:", undefined],
    ["admin", undefined],
    ["admin:%E0%A4%A", undefined],
    [["admin:a", "admin:b"], undefined],
    [undefined, undefined],
  ];
  for (const [header, want] of cases) it(JSON.stringify(header), () => assert.deepEqual(forwardedCaller(header), want));
});

describe("peerMemberApiAddress", () => {
  const cases: [string | undefined, string | undefined, string | undefined][] = [
    ["10.0.0.7:9443", "0.0.0.0:9447", "10.0.0.7:9447"],
    ["[fd00::7]:9443", "[::]:9447", "[fd00::7]:9447"],
    ["127.0.0.1:40001", "127.0.0.1:0", undefined],
    [undefined, "0.0.0.0:9447", undefined],
    ["10.0.0.7:9443", undefined, undefined],
  ];
  for (const [peer, listen, want] of cases) it(`${peer} + ${listen}`, () => assert.equal(peerMemberApiAddress(peer, listen), want));
});
