// A removal whose confirmation was lost (the hub it went to died, the agent restarted) must not
// hold the binding, and its finalizer, for good: the agent's next Hello no longer lists the Work,
// and that confirms the removal. While the agent still lists it, the binding waits.
import { AGENT_FEATURES, PROTOCOL_VERSION } from "../../shared/protocol.ts";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import type { AgentMessage } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { apply, type BindingJson, clusterItem, eventually, getJson, kubectl } from "./helpers.ts";
import { hostileStream, type HostileStream } from "./hostile-agent.ts";

const NS = "lost";
const KEY = `core/v1/ConfigMap/${NS}/gone`;

const hello = (holds: Record<string, string>): AgentMessage => ({ kind: { $case: "hello", value: { clusterName: "member2", agentVersion: "stand-in", workHashes: holds, earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0), needsContents: false, protocolVersion: PROTOCOL_VERSION, features: [...AGENT_FEATURES] } } });
const applied = (hash: string): AgentMessage => ({
  kind: { $case: "workStatus", value: { workKey: KEY, observedHash: hash, applied: true, available: true, reason: "", message: "", manifests: [], deleted: false } },
});

describe("a removal whose confirmation was lost", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  const streams: HostileStream[] = [];
  // member2's agent, played by the test over real mTLS with member2's certificate.
  const standIn = async (holds: Record<string, string>) => {
    const s = hostileStream({ hubPort: flotilla.hubPort, certsDir: flotilla.certsDir, cluster: "member2" });
    streams.push(s);
    await s.send(hello(holds));
    await eventually("the stand-in synced", async () => s.received, (r) => r.some((m) => m.kind?.$case === "syncDone"), 30_000);
    return s;
  };

  before(async () => {
    fleet = await startFleet({ members: 2 });
    // No heartbeats come from the stand-in: a long threshold keeps member2 Ready meanwhile.
    flotilla = await startFlotilla(fleet, { clusterFailureThreshold: "10m" });
    await flotilla.stopAgent("member2");
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    for (const s of streams) s.close();
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("is confirmed by the agent's next Hello without the Work; until then the binding waits", async () => {
    const binding = () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "gone-configmap"]);
    const first = await standIn({});
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "gone", namespace: NS }, data: { a: "b" } }));
    await apply(
      fleet.control,
      JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "gone", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "gone" }], placement: { clusterAffinity: { clusterNames: ["member2"] } } } }),
    );
    const upsert = await eventually("the Work sent to member2", async () => first.received.find((m) => m.kind?.$case === "workUpsert" && m.kind.value.workKey === KEY), (m) => m !== undefined, 60_000);
    const hash = upsert?.kind?.$case === "workUpsert" ? upsert.kind.value.contentHash : "";
    await first.send(applied(hash));
    await eventually("member2's report on the binding", binding, (b) => clusterItem(b, "member2")?.applied === true, 30_000);

    // The template goes; the "agent" removes the object, but its confirmation is lost with the stream.
    await kubectl(fleet.control, ["delete", "configmap", "-n", NS, "gone", "--wait=false"]);
    await eventually("the WorkDelete sent", async () => first.received.some((m) => m.kind?.$case === "workDelete" && m.kind.value.workKey === KEY), (x) => x, 30_000);
    first.close();

    // Reconnected while still holding it: nothing is confirmed, the binding waits for the removal.
    const second = await standIn({ [KEY]: hash });
    await eventually("the WorkDelete sent again", async () => second.received.some((m) => m.kind?.$case === "workDelete" && m.kind.value.workKey === KEY), (x) => x, 30_000);
    // A removal still to be confirmed is shown within the status controller's longest wait (5 s: status-settle.ts).
    await eventually("the binding shows the removal it waits for", binding, (b) => clusterItem(b, "member2")?.reason === "WaitingForRemoval", 15_000);
    await new Promise((r) => setTimeout(r, 2_000));
    const waiting = await binding();
    assert.equal(clusterItem(waiting as BindingJson, "member2")?.reason, "WaitingForRemoval", "held while the agent still holds the Work");
    assert.ok((waiting?.metadata.finalizers ?? []).length > 0, "its finalizer holds it");
    second.close();

    // Restarted without it (its removal done, the report lost): the Hello confirms, the binding goes.
    await standIn({});
    await eventually("the binding removed (its finalizer released)", async () => ((await binding()) === undefined ? true : undefined), (x) => x, 30_000);
  });
});
