// Real ExternalDNS and CoreDNS from test/env: a DNSEndpoint written by hand in the control cluster
// is answered by CoreDNS, follows updates, and its names go when it is deleted.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { installCrds } from "../../control-plane/crd-install/crds.ts";
import { queryAt, resolveAt } from "./dns-client.ts";
import { type DnsServer, startDns } from "./dns.ts";
import { type Cluster, startCluster } from "./cluster.ts";
import { isListening } from "./free-port.ts";
import { isProcessAlive } from "./managed-process.ts";
import { waitFor } from "./wait.ts";

const NS = "default";
const gvr = { group: "multiclusterdns.flotilla.dev", version: "v1alpha1", plural: "dnsendpoints" };

describe("test/env DNS: ExternalDNS publishing DNSEndpoints through CoreDNS", () => {
  let control: Cluster;
  let dns: DnsServer;
  let custom: CustomObjectsApi;
  const dnsDir = join(tmpdir(), `flotilla-dns-${process.pid}`);

  before(async () => {
    control = await startCluster({ name: "control", role: "control", dir: join(tmpdir(), `flotilla-dns-control-${process.pid}`) });
    await installCrds(control.kubeConfig());
    dns = await startDns({ dir: dnsDir, controlKubeconfigPath: control.kubeconfigPath });
    custom = control.kubeConfig().makeApiClient(CustomObjectsApi);
  });
  after(async () => {
    await dns?.stop();
    await control?.stop();
  });

  const answers = (name: string, type: "A" | "CNAME", want: string[], what: string) =>
    waitFor(
      async () => {
        const got = await resolveAt(dns.server, name, type);
        return JSON.stringify(got) === JSON.stringify(want) ? got : undefined;
      },
      { what: `${what}: ${type} ${name} → [${want.join(", ")}]`, timeoutMs: 30_000, intervalMs: 100 },
    );

  it("answers a DNSEndpoint's A record (two targets) and CNAME, follows an update, and forgets a deleted one", async () => {
    assert.match(dns.server, /^127\.0\.0\.1:\d+$/);
    await custom.createNamespacedCustomObject({
      ...gvr,
      namespace: NS,
      body: {
        apiVersion: "multiclusterdns.flotilla.dev/v1alpha1",
        kind: "DNSEndpoint",
        metadata: { name: "web" },
        spec: {
          endpoints: [
            { dnsName: "web.demo.example.com", recordType: "A", targets: ["127.0.101.1", "127.0.102.1"], recordTTL: 30 },
            { dnsName: "www.example.com", recordType: "CNAME", targets: ["web.demo.example.com"], recordTTL: 30 },
          ],
        },
      },
    });
    await answers("web.demo.example.com", "A", ["127.0.101.1", "127.0.102.1"], "published");
    await answers("www.example.com", "CNAME", ["web.demo.example.com"], "published");
    // A client asking the CNAME's name for addresses gets the chain's end.
    await answers("www.example.com", "A", ["127.0.101.1", "127.0.102.1"], "the CNAME followed");
    const chain = await queryAt(dns.server, "www.example.com", "A");
    assert.deepEqual(
      chain.answers.map((r) => `${r.name} ${r.type} ${r.data} ${r.ttl}`).sort(),
      ["web.demo.example.com A 127.0.101.1 30", "web.demo.example.com A 127.0.102.1 30", "www.example.com CNAME web.demo.example.com 30"],
      "the chain in the answer, with the records' TTL",
    );
    const observed = await waitFor(
      async () => {
        const o = (await custom.getNamespacedCustomObject({ ...gvr, namespace: NS, name: "web" })) as { metadata: { generation: number }; status?: { observedGeneration?: number } };
        return o.status?.observedGeneration === o.metadata.generation ? o : undefined;
      },
      { what: "ExternalDNS writes status.observedGeneration", timeoutMs: 30_000, intervalMs: 200 },
    );
    assert.equal(observed.status?.observedGeneration, 1);

    await custom.patchNamespacedCustomObject({
      ...gvr,
      namespace: NS,
      name: "web",
      body: [{ op: "replace", path: "/spec/endpoints/0/targets", value: ["127.0.101.2"] }],
    });
    await answers("web.demo.example.com", "A", ["127.0.101.2"], "updated");
    await answers("www.example.com", "A", ["127.0.101.2"], "the CNAME follows the update");

    await custom.deleteNamespacedCustomObject({ ...gvr, namespace: NS, name: "web" });
    await answers("web.demo.example.com", "A", [], "deleted");
    await answers("www.example.com", "CNAME", [], "deleted");
    assert.equal((await queryAt(dns.server, "www.example.com", "A")).rcode, "NXDOMAIN");
  });

  it("leaves no process, port or directory behind when stopped", async () => {
    const extra = await startDns({ dir: `${dnsDir}-second`, controlKubeconfigPath: control.kubeconfigPath });
    const pids = extra.processes.map((p) => p.pid);
    assert.equal(pids.length, 3, "etcd, CoreDNS, ExternalDNS");
    assert.ok(await isListening(extra.port), "CoreDNS listens on TCP too");
    await extra.stop();
    for (const pid of pids) assert.ok(!isProcessAlive(pid), `pid ${pid} is gone`);
    assert.ok(!(await isListening(extra.port)), `port ${extra.port} is free`);
    assert.ok(!existsSync(`${dnsDir}-second`), "its directory is removed");
  });
});
