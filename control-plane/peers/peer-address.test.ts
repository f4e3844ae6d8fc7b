import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { peerAddress } from "./peer-address.ts";

describe("peerAddress", () => {
  const cases: { name: string; flag?: string; listen: string; podIp?: string; want: string | undefined | "error" }[] = [
    { name: "the flag wins", flag: "10.0.0.7:9443", listen: "127.0.0.1:9443", want: "10.0.0.7:9443" },
    { name: "a flag that is no host:port is refused", flag: "replica-1", listen: "0.0.0.0:9443", want: "error" },
    { name: "a listener on one host: that host", listen: "127.0.0.1:40123", want: "127.0.0.1:40123" },
    { name: "on every interface: the pod's IP and the port", listen: "0.0.0.0:9443", podIp: "10.1.2.3", want: "10.1.2.3:9443" },
    { name: "an IPv6 pod IP is bracketed", listen: "[::]:9443", podIp: "fd00::5", want: "[fd00::5]:9443" },
    { name: "on every interface without POD_IP: none", listen: "0.0.0.0:9443", want: undefined },
    { name: "port 0 (picked at start): none", listen: "127.0.0.1:0", want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = peerAddress(c.flag, c.listen, c.podIp);
      if (c.want === "error") assert.ok(got instanceof Error);
      else assert.equal(got, c.want);
    });
  }
});
