import assert from "node:assert/strict";
import { it } from "node:test";
import fc from "fast-check";
import type { Heartbeat } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { parseQuantity } from "../../shared/quantity.ts";
import { heartbeat } from "./agent-message.fixtures.ts";
import { CLAIM_BOUNDS, checkHeartbeat, quantityProblem } from "./heartbeat-claims.ts";

const hb = (x: Partial<Heartbeat>): Heartbeat => ({ kubernetesVersion: "v1.33.0", agentVersion: "v1", nodeSummary: { total: 3, ready: 3 }, resourceSummary: { allocatable: {}, allocated: {} }, apiEnablements: ["apps/v1"], ...x });

it("takes sane quantities and names what is wrong with the others", () => {
  const table: [string, string, RegExp | undefined][] = [
    ["cpu", "4", undefined],
    ["memory", "8Gi", undefined],
    ["cpu", "500m", undefined],
    ["cpu", "0", undefined],
    ["cpu", "-1", /negative/],
    ["cpu", "1e400", /not finite/],
    ["cpu", "1e19", /above/],
    ["cpu", "lots", /not a quantity/],
    ["cpu", "", /not a quantity/],
    ["cpu", "1".repeat(CLAIM_BOUNDS.quantity + 1), /characters/],
    ["", "4", /resource name/],
  ];
  for (const [name, q, want] of table) {
    const p = quantityProblem(name, q);
    if (want === undefined) assert.equal(p, undefined, `${name}=${q}`);
    else assert.match(p ?? "", want, `${name}=${q}`);
  }
});

it("leaves insane claims out of the heartbeat and says which", () => {
  const sane = hb({ resourceSummary: { allocatable: { cpu: "8", memory: "32Gi" }, allocated: { cpu: "1" } } });
  assert.deepEqual(checkHeartbeat(sane), { heartbeat: sane, problems: [] });

  const greedy = checkHeartbeat(hb({ resourceSummary: { allocatable: { cpu: "1e30", memory: "32Gi", pods: "-5" }, allocated: {} } }));
  assert.deepEqual(greedy.heartbeat.resourceSummary?.allocatable, { memory: "32Gi" });
  assert.equal(greedy.problems.length, 2);
  assert.match(greedy.problems.join("\n"), /allocatable: cpu: "1e30" is above/);

  const nodes = checkHeartbeat(hb({ nodeSummary: { total: 2, ready: 5 } }));
  assert.equal(nodes.heartbeat.nodeSummary, undefined);
  assert.match(nodes.problems[0] ?? "", /5 ready of 2/);

  const many = checkHeartbeat(hb({ resourceSummary: { allocatable: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`r${i}`, "1"])), allocated: {} } }));
  assert.equal(Object.keys(many.heartbeat.resourceSummary?.allocatable ?? {}).length, CLAIM_BOUNDS.resources);
  assert.match(many.problems[0] ?? "", /100 resources/);

  const long = checkHeartbeat(hb({ kubernetesVersion: "v".repeat(1000), apiEnablements: ["", "apps/v1"] }));
  assert.equal(long.heartbeat.kubernetesVersion, "");
  assert.deepEqual(long.heartbeat.apiEnablements, ["apps/v1"]);
  assert.equal(long.problems.length, 2);
});

it("never throws, and every claim it passes on is a sane quantity", () => {
  fc.assert(
    fc.property(heartbeat(), (h) => {
      const { heartbeat: out, problems } = checkHeartbeat(h);
      for (const list of [out.resourceSummary?.allocatable ?? {}, out.resourceSummary?.allocated ?? {}]) {
        for (const q of Object.values(list)) {
          const v = parseQuantity(q);
          assert.ok(Number.isFinite(v) && v >= 0 && v <= CLAIM_BOUNDS.ceiling);
        }
      }
      for (const p of problems) assert.ok(p.length > 0 && p.length < 1000);
    }),
    { numRuns: 300 },
  );
});

it("counts capacity only as far as the nodes it names could hold it, and no more nodes than --max-cluster-nodes (issue 37: one agent skewing dynamic weights)", () => {
  const skewed = checkHeartbeat(hb({ nodeSummary: { total: 2, ready: 2 }, resourceSummary: { allocatable: { cpu: "4096", memory: "128Ti", pods: "220", "nvidia.com/gpu": "8" }, allocated: { cpu: "3000" } } }));
  assert.deepEqual(skewed.heartbeat.resourceSummary, { allocatable: { cpu: "2048", memory: String(64 * 2 ** 40), pods: "220", "nvidia.com/gpu": "8" }, allocated: { cpu: "2048" } });
  assert.match(skewed.problems.join("\n"), /allocatable: cpu 4096 is more than 2 nodes hold \(at most 1024 each\)/);
  assert.match(skewed.problems.join("\n"), /allocatable: memory 128Ti is more than 2 nodes hold/);
  assert.match(skewed.problems.join("\n"), /allocated: cpu 3000/);
  // Without nodes, no capacity: a heartbeat cannot drop its node count to escape the bound.
  const nodeless = checkHeartbeat(hb({ nodeSummary: undefined, resourceSummary: { allocatable: { cpu: "8" }, allocated: {} } }));
  assert.deepEqual(nodeless.heartbeat.resourceSummary?.allocatable, { cpu: "0" });
  const many = checkHeartbeat(hb({ nodeSummary: { total: 600, ready: 600 }, resourceSummary: { allocatable: { cpu: "9600" }, allocated: {} } }), 500);
  assert.equal(many.heartbeat.nodeSummary, undefined);
  assert.match(many.problems[0] ?? "", /at most 500 nodes, --max-cluster-nodes/);
  assert.deepEqual(many.heartbeat.resourceSummary?.allocatable, { cpu: "0" }, "nodes not counted: no capacity either");
  assert.deepEqual(checkHeartbeat(hb({ nodeSummary: { total: 600, ready: 600 }, resourceSummary: { allocatable: { cpu: "9600" }, allocated: {} } })).problems, [], "the default allows it");
  // Found by the property below in a full run: a resource named like an Object member was capped at "NaN".
  const odd = checkHeartbeat(hb({ nodeSummary: undefined, resourceSummary: { allocatable: { constructor: "4" }, allocated: { valueOf: "4", __proto__x: "1" } } }));
  assert.deepEqual(odd.heartbeat.resourceSummary, { allocatable: { constructor: "4" }, allocated: { valueOf: "4", __proto__x: "1" } });
  assert.deepEqual(odd.problems, []);
});
