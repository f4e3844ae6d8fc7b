import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FlagValues } from "../../shared/flags.ts";
import { type ConnectionPlan, planConnection } from "./connection.ts";

describe("planConnection", () => {
  const state = (dir: string, file: string) => `${dir}/flotilla-certs/${file}`;
  const cases: { name: string; flags: FlagValues; want: ConnectionPlan }[] = [
    {
      name: "the local fleet: everything from the state directory, verified as localhost",
      flags: { "state-dir": ".flotilla" },
      want: { server: { file: state(".flotilla", "admin-endpoint") }, serverName: "localhost", caCert: state(".flotilla", "ca.crt"), cert: state(".flotilla", "admin.crt"), key: state(".flotilla", "admin.key") },
    },
    {
      name: "an explicit server is verified by its own host",
      flags: { "state-dir": "/s", server: "cp.example.com:9443" },
      want: { server: "cp.example.com:9443", serverName: undefined, caCert: state("/s", "ca.crt"), cert: state("/s", "admin.crt"), key: state("/s", "admin.key") },
    },
    {
      name: "an explicit server name wins",
      flags: { "state-dir": "/s", server: "10.0.0.7:9443", "server-name": "flotilla-control-plane.flotilla-system.svc" },
      want: { server: "10.0.0.7:9443", serverName: "flotilla-control-plane.flotilla-system.svc", caCert: state("/s", "ca.crt"), cert: state("/s", "admin.crt"), key: state("/s", "admin.key") },
    },
    {
      name: "files named by flags; empty values mean unset",
      flags: { "state-dir": "/s", server: "", "server-name": "", "ca-cert": "/c/ca.pem", cert: "/c/me.pem", key: "/c/me.key" },
      want: { server: { file: state("/s", "admin-endpoint") }, serverName: "localhost", caCert: "/c/ca.pem", cert: "/c/me.pem", key: "/c/me.key" },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(planConnection(c.flags), c.want);
    });
  }
});
