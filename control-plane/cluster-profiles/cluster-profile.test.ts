import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Condition } from "../../shared/api/types.ts";
import { desiredProfile, isFlotillas, memberEndpoint, ownedStatus, slimProfile } from "./cluster-profile.ts";
import { ACCESS, cluster, EARLIER, NOW, NS, profile, ready } from "./cluster-profile.fixtures.ts";

const condition = (conds: Condition[], type: string) => {
  const c = conds.find((x) => x.type === type);
  return c === undefined ? "" : `${c.status} ${c.reason} @${c.lastTransitionTime}`;
};

describe("desiredProfile: what Flotilla publishes for a Cluster", () => {
  it("names it as the Cluster, labels it and says flotilla is its cluster manager", () => {
    const d = desiredProfile(cluster({ name: "eu-1" }), { namespace: NS, now: NOW });
    assert.deepEqual([d.name, d.namespace, d.labels, d.spec], ["eu-1", NS, { "x-k8s.io/cluster-manager": "flotilla" }, { displayName: "eu-1", clusterManager: { name: "flotilla" } }]);
  });

  const cases: { name: string; c: ReturnType<typeof cluster>; version?: string; properties: string; healthy: string; joined: string }[] = [
    {
      name: "a Ready member with its topology: version, properties, both conditions True",
      c: cluster({ region: "eu-west-1", zone: "eu-west-1a", provider: "aws" }),
      version: "v1.35.0",
      properties: "cluster.clusterset.k8s.io=member1 provider.flotilla.dev=aws topology.kubernetes.io/region=eu-west-1 topology.kubernetes.io/zone=eu-west-1a",
      healthy: `True ClusterReady @${EARLIER}`,
      joined: `True AgentJoined @${NOW}`,
    },
    {
      name: "no topology: only the KEP-2149 cluster id",
      c: cluster(),
      version: "v1.35.0",
      properties: "cluster.clusterset.k8s.io=member1",
      healthy: `True ClusterReady @${EARLIER}`,
      joined: `True AgentJoined @${NOW}`,
    },
    {
      name: "NotReady: ControlPlaneHealthy False with the Ready condition's reason and time",
      c: cluster({ ready: ready("False") }),
      version: "v1.35.0",
      properties: "cluster.clusterset.k8s.io=member1",
      healthy: `False ClusterNotReachable @${EARLIER}`,
      joined: `True AgentJoined @${NOW}`,
    },
    {
      name: "no agent yet: no version, health Unknown, not Joined",
      c: cluster({ ready: null, version: null }),
      properties: "cluster.clusterset.k8s.io=member1",
      healthy: `Unknown NoHeartbeatYet @${NOW}`,
      joined: `False AgentNotConnected @${NOW}`,
    },
    {
      name: "a Ready condition whose reason is not a CamelCase word: a reason the schema takes",
      c: cluster({ ready: ready("False", { reason: "not reachable" }) }),
      version: "v1.35.0",
      properties: "cluster.clusterset.k8s.io=member1",
      healthy: `False ClusterNotReady @${EARLIER}`,
      joined: `True AgentJoined @${NOW}`,
    },
    {
      name: "being deleted (unjoining): not Joined",
      c: cluster({ deleting: true }),
      version: "v1.35.0",
      properties: "cluster.clusterset.k8s.io=member1",
      healthy: `True ClusterReady @${EARLIER}`,
      joined: `False Unjoining @${NOW}`,
    },
    {
      name: "awaiting acceptance (--require-acceptance): not Joined",
      c: cluster({ accepted: "False" }),
      version: "v1.35.0",
      properties: "cluster.clusterset.k8s.io=member1",
      healthy: `True ClusterReady @${EARLIER}`,
      joined: `False AwaitingAcceptance @${NOW}`,
    },
    {
      name: "accepted: Joined",
      c: cluster({ accepted: "True" }),
      version: "v1.35.0",
      properties: "cluster.clusterset.k8s.io=member1",
      healthy: `True ClusterReady @${EARLIER}`,
      joined: `True AgentJoined @${NOW}`,
    },
    {
      name: "an empty value or one over upstream's 1024 characters is left out",
      c: cluster({ region: "", zone: "z".repeat(1025), provider: "p".repeat(1024) }),
      version: "v1.35.0",
      properties: `cluster.clusterset.k8s.io=member1 provider.flotilla.dev=${"p".repeat(1024)}`,
      healthy: `True ClusterReady @${EARLIER}`,
      joined: `True AgentJoined @${NOW}`,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = desiredProfile(c.c, { namespace: NS, now: NOW }).status;
      assert.equal(s.version?.kubernetes, c.version);
      assert.equal(s.properties.map((p) => `${p.name}=${p.value}`).join(" "), c.properties);
      assert.equal(condition(s.conditions, "ControlPlaneHealthy"), c.healthy);
      assert.equal(condition(s.conditions, "Joined"), c.joined);
      assert.deepEqual(s.accessProviders, []);
    });
  }

  it("keeps a condition's lastTransitionTime while its status holds, and stamps now when it changes", () => {
    const served = profile({ status: { conditions: [{ type: "Joined", status: "True", reason: "AgentJoined", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }, { type: "ControlPlaneHealthy", status: "Unknown", reason: "NoHeartbeatYet", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }] } });
    const held = desiredProfile(cluster(), { namespace: NS, served, now: NOW }).status.conditions;
    assert.equal(condition(held, "Joined"), "True AgentJoined @2026-01-01T00:00:00Z");
    const changed = desiredProfile(cluster({ deleting: true, ready: null }), { namespace: NS, served, now: NOW }).status.conditions;
    assert.equal(condition(changed, "Joined"), `False Unjoining @${NOW}`);
    assert.equal(condition(changed, "ControlPlaneHealthy"), "Unknown NoHeartbeatYet @2026-01-01T00:00:00Z");
  });

  it("points the flotilla access provider at the member API endpoint, with the control plane's CA", () => {
    const s = desiredProfile(cluster({ name: "eu-1" }), { namespace: NS, access: ACCESS, now: NOW }).status;
    assert.deepEqual(s.accessProviders, [{ name: "flotilla", cluster: { server: "https://flotilla.example:9443/clusters/eu-1", "certificate-authority-data": ACCESS.caData } }]);
  });

  it("memberEndpoint: <url>/clusters/<name>, whatever slashes the URL ends with", () => {
    assert.equal(memberEndpoint("https://h:1/", "m"), "https://h:1/clusters/m");
    assert.equal(memberEndpoint("https://h:1/base//", "m"), "https://h:1/base/clusters/m");
  });
});

describe("ownedStatus: the part of a served status that is Flotilla's", () => {
  it("keeps Flotilla's property names, condition types and provider; not another writer's", () => {
    const owned = ownedStatus({
      version: { kubernetes: "v1.35.0" },
      properties: [{ name: "gpu.example.com/count", value: "8" }, { name: "topology.kubernetes.io/region", value: "eu", lastObservedTime: NOW }],
      conditions: [{ type: "Joined", status: "True", reason: "AgentJoined", message: "", lastTransitionTime: NOW, observedGeneration: 3 }, { type: "example.com/Audited", status: "True", reason: "Done", message: "", lastTransitionTime: NOW }],
      accessProviders: [{ name: "secretreader", cluster: { server: "https://direct:6443" } }, { name: "flotilla", cluster: { server: "https://f/clusters/member1", extensions: [{ name: "x", extension: {} }] } }],
      credentialProviders: [{ name: "flotilla", cluster: { server: "https://old" } }],
    });
    assert.deepEqual(owned, {
      version: { kubernetes: "v1.35.0" },
      properties: [{ name: "topology.kubernetes.io/region", value: "eu" }],
      conditions: [{ type: "Joined", status: "True", reason: "AgentJoined", message: "", lastTransitionTime: NOW }],
      accessProviders: [{ name: "flotilla", cluster: { server: "https://f/clusters/member1" } }],
    });
  });
  it("of no status: empty", () => assert.deepEqual(ownedStatus(undefined), { properties: [], conditions: [], accessProviders: [] }));
});

describe("slimProfile: what the controller's cache keeps", () => {
  it("the decision's inputs only: identity, labels, manager, Flotilla's status with the CA as a digest", () => {
    const status = desiredProfile(cluster(), { namespace: NS, access: ACCESS, now: NOW }).status;
    const served = profile({ status: { ...status, properties: [...status.properties, { name: "gpu.example.com/count", value: "8" }] } });
    const slim = slimProfile({ ...served, metadata: { ...served.metadata, annotations: { big: "x".repeat(1000) }, generation: 3 } });
    assert.deepEqual(slim.metadata, { name: "member1", namespace: NS, uid: "profile-uid", resourceVersion: "41", labels: { "x-k8s.io/cluster-manager": "flotilla" } });
    assert.deepEqual(slim.spec, { clusterManager: { name: "flotilla" } });
    assert.deepEqual(slim.status?.properties, status.properties);
    assert.ok(!JSON.stringify(slim).includes(ACCESS.caData), "no CA bundle");
    assert.deepEqual(slimProfile(slim), slim, "idempotent");
  });
});

describe("isFlotillas: the label and the immutable manager both say flotilla", () => {
  const cases: { name: string; p: ReturnType<typeof profile>; want: boolean }[] = [
    { name: "label and manager flotilla", p: profile(), want: true },
    { name: "another manager's (label and manager)", p: profile({ label: "open-cluster-management", manager: "open-cluster-management" }), want: false },
    { name: "labelled flotilla, another manager in spec", p: profile({ manager: "open-cluster-management" }), want: false },
    { name: "manager flotilla, the label another's", p: profile({ label: "fleet" }), want: false },
    { name: "manager flotilla, no label (a person's, or relabelled)", p: profile({ label: null }), want: false },
    { name: "the label in another case", p: profile({ label: "Flotilla" }), want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(isFlotillas(c.p), c.want));
});
