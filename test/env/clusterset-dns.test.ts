// Clusterset DNS (issue 40) with CoreDNS's standard plugins, against a real member apiserver: the
// stanza docs/guides/mcs.md gives cluster admins answers `<svc>.<ns>.svc.clusterset.local` from
// the derived Services `clusterset-<svc>` and their EndpointSlices, under the asked name.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CoreV1Api, DiscoveryV1Api } from "@kubernetes/client-node";
import { CLUSTERSET_COREFILE_STANZA, CLUSTERSET_DNS_MAX_SERVICE_NAME } from "../../shared/api/mcs-dns.ts";
import {
  DERIVED_SERVICE_PREFIX,
  ENDPOINTSLICE_MANAGED_BY_LABEL,
  KUBE_SERVICE_NAME_LABEL,
  MCS_ENDPOINTSLICE_MANAGER,
  MCS_IMPORT_LABEL,
  MCS_SERVICE_NAME_LABEL,
  MCS_SOURCE_CLUSTER_LABEL,
} from "../../shared/api/mcs.ts";
import { type ClustersetDns, startClustersetDns } from "./clusterset-dns.ts";
import { type Cluster, startCluster } from "./cluster.ts";
import { queryAt } from "./dns-client.ts";
import { isProcessAlive } from "./managed-process.ts";
import { waitFor } from "./wait.ts";

const NS = "demo";

describe("the clusterset Corefile stanza", () => {
  it("reaches Service names of up to 52 characters, and is what docs/guides/mcs.md shows", async () => {
    assert.equal(CLUSTERSET_DNS_MAX_SERVICE_NAME, 52);
    assert.equal(DERIVED_SERVICE_PREFIX.length + CLUSTERSET_DNS_MAX_SERVICE_NAME, 63);
    assert.match(CLUSTERSET_COREFILE_STANZA, /\{1,52\}/);
    const guide = await readFile(new URL("../../docs/guides/mcs.md", import.meta.url), "utf8");
    assert.ok(guide.includes(CLUSTERSET_COREFILE_STANZA), "the guide quotes CLUSTERSET_COREFILE_STANZA verbatim");
  });
});

describe("clusterset DNS from a member's derived Services (CoreDNS rewrite + kubernetes)", () => {
  let member: Cluster;
  let dns: ClustersetDns;
  let webClusterIp: string;
  let localWebIp: string;

  before(async () => {
    member = await startCluster({ name: "member1", role: "member", dir: join(tmpdir(), `flotilla-csdns-member-${process.pid}`) });
    const core = member.kubeConfig().makeApiClient(CoreV1Api);
    const discovery = member.kubeConfig().makeApiClient(DiscoveryV1Api);
    await core.createNamespace({ body: { metadata: { name: NS } } });
    const derived = (svc: string) => ({
      name: `${DERIVED_SERVICE_PREFIX}${svc}`,
      labels: { [MCS_IMPORT_LABEL]: "true", [MCS_SERVICE_NAME_LABEL]: svc },
    });
    // What the agent makes for a ClusterSetIP import and a Headless one: selectorless Services.
    const web = await core.createNamespacedService({
      namespace: NS,
      body: { metadata: derived("web"), spec: { type: "ClusterIP", ports: [{ name: "http", port: 80, protocol: "TCP" }] } },
    });
    webClusterIp = web.spec?.clusterIP ?? "";
    assert.match(webClusterIp, /^10\.0\.0\.\d+$/);
    // The member's own Service of the same name, which clusterset.local must never answer with.
    const local = await core.createNamespacedService({
      namespace: NS,
      body: { metadata: { name: "web" }, spec: { type: "ClusterIP", ports: [{ name: "http", port: 80, protocol: "TCP" }] } },
    });
    localWebIp = local.spec?.clusterIP ?? "";
    assert.notEqual(localWebIp, webClusterIp);
    await core.createNamespacedService({
      namespace: NS,
      body: { metadata: derived("db"), spec: { clusterIP: "None", ports: [{ name: "pg", port: 5432, protocol: "TCP" }] } },
    });
    await discovery.createNamespacedEndpointSlice({
      namespace: NS,
      body: {
        metadata: {
          name: "clusterset-db-member2",
          labels: {
            [KUBE_SERVICE_NAME_LABEL]: "clusterset-db",
            [ENDPOINTSLICE_MANAGED_BY_LABEL]: MCS_ENDPOINTSLICE_MANAGER,
            [MCS_SERVICE_NAME_LABEL]: "db",
            [MCS_SOURCE_CLUSTER_LABEL]: "member2",
            [MCS_IMPORT_LABEL]: "true",
          },
        },
        addressType: "IPv4",
        ports: [{ name: "pg", port: 5432, protocol: "TCP" }],
        endpoints: [
          { addresses: ["10.244.2.11"], conditions: { ready: true } },
          { addresses: ["10.244.2.12"], conditions: { ready: true } },
          { addresses: ["10.244.2.13"], conditions: { ready: false } },
        ],
      },
    });
    dns = await startClustersetDns({ dir: join(tmpdir(), `flotilla-csdns-${process.pid}`), kubeconfigPath: member.kubeconfigPath });
  });
  after(async () => {
    await dns?.stop();
    await member?.stop();
  });

  /** The answer to `A name` once it holds want (sorted addresses); CoreDNS's informers may lag the writes. */
  const answered = (name: string, want: string[]) =>
    waitFor(
      async () => {
        const res = await queryAt(dns.server, name, "A");
        const got = res.answers.filter((r) => r.type === "A").map((r) => r.data).sort();
        return JSON.stringify(got) === JSON.stringify(want) ? res : undefined;
      },
      { what: `A ${name} → [${want.join(", ")}]`, timeoutMs: 20_000, intervalMs: 100 },
    );

  it("answers a ClusterSetIP import with its derived Service's cluster IP (not the local Service's), under the asked name", async () => {
    assert.match(dns.server, /^127\.0\.0\.1:\d+$/);
    const res = await answered(`web.${NS}.svc.clusterset.local`, [webClusterIp]);
    assert.equal(res.rcode, "NOERROR");
    assert.deepEqual(res.answers.map((r) => `${r.name} ${r.type} ${r.data}`), [`web.${NS}.svc.clusterset.local A ${webClusterIp}`]);
    assert.ok(!res.answers.some((r) => r.data === localWebIp), "never the member's own web Service");
  });

  it("answers a Headless import with its ready endpoints only, under the asked name", async () => {
    const res = await answered(`db.${NS}.svc.clusterset.local`, ["10.244.2.11", "10.244.2.12"]);
    assert.equal(res.rcode, "NOERROR");
    assert.deepEqual([...new Set(res.answers.map((r) => r.name))], [`db.${NS}.svc.clusterset.local`]);
  });

  it("says NXDOMAIN for a service that is not imported, and for a namespace that does not exist", async () => {
    for (const name of [`cache.${NS}.svc.clusterset.local`, "web.elsewhere.svc.clusterset.local"]) {
      const res = await queryAt(dns.server, name, "A");
      assert.equal(res.rcode, "NXDOMAIN", name);
      assert.deepEqual(res.answers, [], name);
    }
    assert.ok(isProcessAlive(dns.process.pid), "CoreDNS still runs");
  });

  it("does not serve what the rewrite cannot reach: longer Service names, per-cluster hostnames, SRV names (SERVFAIL)", async () => {
    const unreached: [string, string][] = [
      [`${"a".repeat(CLUSTERSET_DNS_MAX_SERVICE_NAME + 1)}.${NS}.svc.clusterset.local`, "A"],
      [`h1.member2.db.${NS}.svc.clusterset.local`, "A"],
      [`_http._tcp.web.${NS}.svc.clusterset.local`, "SRV"],
    ];
    for (const [name, type] of unreached) {
      const res = await queryAt(dns.server, name, type);
      assert.equal(res.rcode, "SERVFAIL", `${type} ${name}`);
      assert.deepEqual(res.answers, [], name);
    }
  });
});
