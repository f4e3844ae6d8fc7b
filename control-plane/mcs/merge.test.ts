import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { McsCondition, MemberServiceExportSpec, ServicePort } from "../../shared/api/mcs.ts";
import { exportOf, HELLO_PORTS } from "./exports.fixtures.ts";
import { mergeExports } from "./merge.ts";

const sorted = (ports: ServicePort[]) => [...ports].sort((a, b) => `${a.name}/${a.protocol}/${a.port}`.localeCompare(`${b.name}/${b.protocol}/${b.port}`));

interface Case {
  name: string;
  exports: MemberServiceExportSpec[];
  /** The Conflict condition every export gets. */
  reason: string;
  message?: string;
  type?: string;
  ports?: ServicePort[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const cases: Case[] = [
  {
    name: "one cluster exports: its Service as it is, no conflict",
    exports: [exportOf("cluster-1", 0)],
    reason: "NoConflicts",
    message: "Every export of the service agrees.",
    ports: HELLO_PORTS,
  },
  {
    name: "identical exports in two clusters: no conflict",
    exports: [exportOf("cluster-1", 0), exportOf("cluster-2", 2)],
    reason: "NoConflicts",
    ports: HELLO_PORTS,
  },
  {
    name: "conformance: cluster 2 adds stcp/142/SCTP: the import has the union, and Conflict on both",
    exports: [exportOf("cluster-1", 0), exportOf("cluster-2", 2, { ports: [HELLO_PORTS[0] as ServicePort, { name: "stcp", protocol: "SCTP", port: 142 }] })],
    reason: "PortConflict",
    message: `Conflicting ports. Using the union of the exports' ports, those of the oldest service export in "cluster-1" where they clash. 1/2 clusters disagree.`,
    ports: [...HELLO_PORTS, { name: "stcp", protocol: "SCTP", port: 142 }],
  },
  {
    name: "conformance: cluster 2's tcp is on 43, not 42: the oldest's ports win, Conflict on both",
    exports: [exportOf("cluster-2", 2, { ports: [{ name: "tcp", protocol: "TCP", port: 43 }] }), exportOf("cluster-1", 0)],
    reason: "PortConflict",
    ports: HELLO_PORTS,
  },
  {
    name: "the same protocol and number under another name: the oldest's name wins",
    exports: [exportOf("cluster-1", 0), exportOf("cluster-2", 2, { ports: [{ name: "web", protocol: "TCP", port: 42 }, HELLO_PORTS[1] as ServicePort] })],
    reason: "PortConflict",
    ports: HELLO_PORTS,
  },
  {
    name: "protocol defaults to TCP: an unset protocol is no conflict with TCP",
    exports: [exportOf("cluster-1", 0), exportOf("cluster-2", 2, { ports: [{ name: "tcp", port: 42 }, HELLO_PORTS[1] as ServicePort] })],
    reason: "NoConflicts",
    ports: HELLO_PORTS,
  },
  {
    name: "two unnamed ports on other numbers clash by name (the empty name counts): the oldest's wins",
    exports: [exportOf("cluster-1", 0, { ports: [{ port: 80 }] }), exportOf("cluster-2", 2, { ports: [{ port: 8080 }] })],
    reason: "PortConflict",
    ports: [{ protocol: "TCP", port: 80 }],
  },
  {
    name: "conformance: ClusterSetIP in cluster 1, Headless in cluster 2: ClusterSetIP, Conflict on both",
    exports: [exportOf("cluster-1", 0), exportOf("cluster-2", 2, { type: "Headless" })],
    reason: "TypeConflict",
    message: `Conflicting type. Using "ClusterSetIP" from oldest service export in "cluster-1". 1/2 clusters disagree.`,
    type: "ClusterSetIP",
  },
  {
    name: "the older export is Headless: Headless wins",
    exports: [exportOf("cluster-1", 3), exportOf("cluster-2", 1, { type: "Headless" })],
    reason: "TypeConflict",
    type: "Headless",
  },
  {
    name: "conformance: conflicting exported labels and annotations: the oldest's whole maps, not a union",
    exports: [
      exportOf("cluster-1", 0, { exportedLabels: { "dummy-label": "true" }, exportedAnnotations: { "dummy-annotation": "true" } }),
      exportOf("cluster-2", 2, { exportedLabels: { "dummy-label2": "true" }, exportedAnnotations: { "dummy-annotation2": "true" } }),
    ],
    reason: "LabelsConflict,AnnotationsConflict",
    labels: { "dummy-label": "true" },
    annotations: { "dummy-annotation": "true" },
  },
  {
    name: "session affinity: ClientIP in the oldest, None in the other",
    exports: [exportOf("cluster-1", 0), exportOf("cluster-2", 2, { sessionAffinity: "None", sessionAffinityConfig: undefined })],
    reason: "SessionAffinityConflict,SessionAffinityConfigConflict",
    message: `Conflicting session affinity. Using "ClientIP" from oldest service export in "cluster-1". 1/2 clusters disagree. Conflicting session affinity config. Using {"clientIP":{"timeoutSeconds":10}} from oldest service export in "cluster-1". 1/2 clusters disagree.`,
  },
  {
    name: "session affinity ClientIP with another timeout: only the config conflicts",
    exports: [exportOf("cluster-1", 0), exportOf("cluster-2", 2, { sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } } })],
    reason: "SessionAffinityConfigConflict",
  },
  {
    name: "an unset sessionAffinity and internalTrafficPolicy equal their defaults",
    exports: [
      exportOf("cluster-1", 0, { sessionAffinity: "None", sessionAffinityConfig: undefined }),
      exportOf("cluster-2", 2, { sessionAffinity: undefined, sessionAffinityConfig: undefined, internalTrafficPolicy: undefined }),
    ],
    reason: "NoConflicts",
  },
  {
    name: "internal traffic policy and traffic distribution differ",
    exports: [exportOf("cluster-1", 0, { trafficDistribution: "PreferClose" }), exportOf("cluster-2", 2, { internalTrafficPolicy: "Local" })],
    reason: "InternalTrafficPolicyConflict,TrafficDistributionConflict",
  },
  {
    name: "IP families: an IPv6-only export beside an IPv4-only oldest shares none",
    exports: [exportOf("cluster-1", 0), exportOf("cluster-2", 2, { ipFamilies: ["IPv6"] })],
    reason: "IPFamilyConflict",
  },
  {
    name: "IP families: a single-stack export under a dual-stack oldest shares one: no conflict",
    exports: [exportOf("cluster-1", 0, { ipFamilies: ["IPv6", "IPv4"] }), exportOf("cluster-2", 2, { ipFamilies: ["IPv4"] }), exportOf("cluster-3", 3, { ipFamilies: [] })],
    reason: "NoConflicts",
  },
  {
    name: "timestamps tied (1 s granularity): the cluster name decides, cluster-a is the oldest",
    exports: [exportOf("cluster-b", 0, { type: "Headless" }), exportOf("cluster-a", 0)],
    reason: "TypeConflict",
    message: `Conflicting type. Using "ClusterSetIP" from oldest service export in "cluster-a". 1/2 clusters disagree.`,
    type: "ClusterSetIP",
  },
  {
    name: "three clusters, one disagrees: 1/3",
    exports: [exportOf("cluster-1", 0), exportOf("cluster-2", 2), exportOf("cluster-3", 4, { type: "Headless" })],
    reason: "TypeConflict",
    message: `Conflicting type. Using "ClusterSetIP" from oldest service export in "cluster-1". 1/3 clusters disagree.`,
  },
  {
    name: "three clusters, the oldest alone: 2/3 disagree with it, and it still wins",
    exports: [exportOf("cluster-1", 0, { type: "Headless" }), exportOf("cluster-2", 2), exportOf("cluster-3", 4)],
    reason: "TypeConflict",
    message: `Conflicting type. Using "Headless" from oldest service export in "cluster-1". 2/3 clusters disagree.`,
    type: "Headless",
  },
];

describe("mergeExports: KEP-1645's conflict resolution, the oldest export first", () => {
  for (const c of cases) {
    it(c.name, () => {
      const merged = mergeExports(c.exports);
      assert.ok(merged !== undefined);
      for (const e of c.exports) {
        const conditions: McsCondition[] | undefined = merged.exportConditions.get(e.cluster);
        const conflict: McsCondition | undefined = conditions?.find((x) => x.type === "Conflict");
        assert.equal(conflict?.reason, c.reason, `${e.cluster}'s Conflict`);
        assert.equal(conflict?.status, c.reason === "NoConflicts" ? "False" : "True");
        assert.match(conflict?.reason ?? "", /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/);
        if (c.message !== undefined) assert.equal(conflict?.message, c.message);
        assert.deepEqual(conditions?.find((x) => x.type === "Ready"), { type: "Ready", status: "True", reason: "Ready", message: "The service is imported in the clusterset." });
      }
      if (c.type !== undefined) assert.equal(merged.type, c.type);
      if (c.ports !== undefined) assert.deepEqual(sorted(merged.ports), sorted(c.ports));
      if (c.labels !== undefined) assert.deepEqual(merged.labels, c.labels);
      if (c.annotations !== undefined) assert.deepEqual(merged.annotations, c.annotations);
    });
  }
});

describe("mergeExports: the merged import", () => {
  it("no export: no import", () => assert.equal(mergeExports([]), undefined));

  it("takes the oldest's affinity, policies and maps, and lists the exporters sorted", () => {
    const merged = mergeExports([
      exportOf("cluster-2", 2, { sessionAffinity: "None", sessionAffinityConfig: undefined, trafficDistribution: "PreferClose" }),
      exportOf("cluster-1", 0, { exportedLabels: { tier: "web" } }),
    ]);
    assert.equal(merged?.sessionAffinity, "ClientIP");
    assert.deepEqual(merged?.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10 } });
    assert.equal(merged?.trafficDistribution, undefined);
    assert.deepEqual(merged?.labels, { tier: "web" });
    assert.deepEqual(merged?.annotations, {});
    assert.deepEqual(merged?.clusters, ["cluster-1", "cluster-2"]);
    assert.deepEqual(merged?.conflicts.map((c) => [c.reason, c.disagreeing]), [
      ["SessionAffinityConflict", ["cluster-2"]],
      ["SessionAffinityConfigConflict", ["cluster-2"]],
      ["LabelsConflict", ["cluster-2"]],
      ["TrafficDistributionConflict", ["cluster-2"]],
    ]);
  });

  it("an unreadable timestamp never wins over a readable one", () => {
    const merged = mergeExports([exportOf("cluster-a", 0, { exportCreationTimestamp: "yesterday", type: "Headless" }), exportOf("cluster-b", 59)]);
    assert.equal(merged?.type, "ClusterSetIP");
  });

  it("a cluster listed twice counts once, by its oldest export", () => {
    const merged = mergeExports([exportOf("cluster-1", 5, { type: "Headless" }), exportOf("cluster-1", 0), exportOf("cluster-2", 2)]);
    assert.deepEqual(merged?.exports.map((e) => e.exportCreationTimestamp), ["2026-07-01T10:00:00Z", "2026-07-01T10:00:02Z"]);
    assert.equal(merged?.conflicts.length, 0);
  });

  it("the clusterset's name goes into Ready's message", () => {
    const merged = mergeExports([exportOf("cluster-1", 0)], { clusterset: "prod" });
    assert.equal(merged?.exportConditions.get("cluster-1")?.[0]?.message, `The service is imported in the clusterset "prod".`);
  });

  it("the same exports in any order merge the same", () => {
    const exports = [exportOf("cluster-1", 0), exportOf("cluster-2", 2, { ports: [{ name: "stcp", protocol: "SCTP", port: 142 }] }), exportOf("cluster-3", 2, { type: "Headless" })];
    const a = mergeExports(exports);
    const b = mergeExports([...exports].reverse());
    assert.deepEqual({ ...a, exportConditions: [...(a?.exportConditions ?? [])] }, { ...b, exportConditions: [...(b?.exportConditions ?? [])] });
  });
});
