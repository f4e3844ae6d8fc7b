import assert from "node:assert/strict";
import { it } from "node:test";
import { parseFlags } from "../../shared/flags.ts";
import { controlPlaneFlags, dashboardFlags } from "../main.ts";
import { listenUrl } from "./index.ts";

const required = ["--ca-cert=a", "--tls-cert=b", "--tls-key=c"];
const parse = (...args: string[]) => dashboardFlags(parseFlags(controlPlaneFlags, [...required, ...args], {}));

it("the dashboard is off by default; its flags are checked before anything starts", () => {
  assert.equal(parse(), undefined);
  assert.deepEqual(parse("--dashboard-address=127.0.0.1:8443"), { listen: "127.0.0.1:8443", sessionTtlMs: 3_600_000 });
  assert.deepEqual(parse("--dashboard-address=0.0.0.0:8443", "--dashboard-url=https://fleet.example.com/", "--dashboard-session-ttl=15m"), { listen: "0.0.0.0:8443", url: "https://fleet.example.com", sessionTtlMs: 900_000 });
  assert.throws(() => parse("--dashboard-url=https://x"), /--dashboard-url needs --dashboard-address/);
  assert.throws(() => parse("--dashboard-address=8443"), /is not host:port/);
  assert.throws(() => parse("--dashboard-address=:99999"), /is not host:port/);
  assert.throws(() => parse("--dashboard-address=:8443", "--dashboard-url=http://x"), /must be https:\/\/host\[:port\]/);
  assert.throws(() => parse("--dashboard-address=:8443", "--dashboard-session-ttl=0s"), /must be above 0/);
});

it("a login link names the address browsers reach", () => {
  assert.equal(listenUrl("0.0.0.0:8443", 8443), "https://127.0.0.1:8443");
  assert.equal(listenUrl(":0", 40000), "https://127.0.0.1:40000");
  assert.equal(listenUrl("[::1]:0", 40000), "https://[::1]:40000");
  assert.equal(listenUrl("dash.local:8443", 8443), "https://dash.local:8443");
});
