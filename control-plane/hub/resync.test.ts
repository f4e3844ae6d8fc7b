import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planResync } from "./resync.ts";
import type { ResyncPlan } from "./resync.ts";

const web = "apps/v1/Deployment/default/web";
const api = "apps/v1/Deployment/default/api";
const ns = "core/v1/Namespace/-/team-a";
const cm = "core/v1/ConfigMap/default/settings";

describe("planResync", () => {
  const cases: { name: string; agent: Record<string, string>; hub: [string, string][]; want: ResyncPlan }[] = [
    { name: "a reconnect where nothing changed moves nothing", agent: { [web]: "h1", [ns]: "h2" }, hub: [[ns, "h2"], [web, "h1"]], want: { upserts: [], deletes: [] } },
    { name: "nothing on either side", agent: {}, hub: [], want: { upserts: [], deletes: [] } },
    { name: "a new agent gets every Work, sorted", agent: {}, hub: [[web, "h1"], [ns, "h2"], [api, "h3"]], want: { upserts: [api, web, ns], deletes: [] } },
    { name: "a Work whose hash changed is upserted", agent: { [web]: "old", [ns]: "h2" }, hub: [[web, "new"], [ns, "h2"]], want: { upserts: [web], deletes: [] } },
    { name: "a Work the hub no longer has is deleted", agent: { [web]: "h1", [cm]: "h4" }, hub: [[web, "h1"]], want: { upserts: [], deletes: [cm] } },
    {
      name: "upserts and deletes together, each sorted",
      agent: { [web]: "old", [cm]: "h4", [api]: "h3" },
      hub: [[ns, "h2"], [web, "new"]],
      want: { upserts: [web, ns], deletes: [api, cm] },
    },
    { name: "an empty hub deletes everything the agent holds", agent: { [web]: "h1", [ns]: "h2" }, hub: [], want: { upserts: [], deletes: [web, ns] } },
    { name: "a key named like an Object prototype member is still compared", agent: {}, hub: [["constructor", "h"]], want: { upserts: ["constructor"], deletes: [] } },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(planResync(c.agent, new Map(c.hub)), c.want));
  }
});
