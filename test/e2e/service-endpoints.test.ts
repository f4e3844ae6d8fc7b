// End to end: a member's EndpointSlices and its Service's load balancer reach the binding's
// aggregatedStatus entry (readyEndpoints, status.loadBalancer): what the DNS controller reads.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, clusterItem, deploymentJson, eventually, getJson, kubectl } from "./helpers.ts";

const NS = "svc-e2e";

interface ServiceEntry {
  clusterName: string;
  readyEndpoints?: number;
  status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } };
}

function service(name: string): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: NS },
    // A class no controller of the test members serves: the address is the one the test writes.
    spec: { type: "LoadBalancer", loadBalancerClass: "flotilla.dev/e2e-none", selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] },
  });
}

function policy(name: string, member: string): string {
  return JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name, namespace: NS },
    spec: {
      resourceSelectors: [
        { apiVersion: "apps/v1", kind: "Deployment", name },
        { apiVersion: "v1", kind: "Service", name },
      ],
      placement: { clusterAffinity: { clusterNames: [member] } },
    },
  });
}

describe("a Service's ready endpoints and load balancer reach its binding", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let control: Cluster;
  let member: Cluster;
  const entry = async () => {
    const b = await getJson<BindingJson>(control, ["resourcebinding", "-n", NS, "web-service"]);
    return b === undefined ? undefined : (clusterItem(b, member.name) as ServiceEntry | undefined);
  };

  before(async () => {
    fleet = await startFleet({ members: 1 });
    flotilla = await startFlotilla(fleet);
    control = fleet.control;
    member = fleet.members[0] as Cluster;
    await kubectl(control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("reports the member's ready endpoints, and 0 once the Deployment is scaled to 0", async () => {
    await apply(control, deploymentJson("web", NS, 2));
    await apply(control, service("web"));
    await apply(control, policy("web", member.name));
    // kwok gives the pods IPs and marks them Ready; the member's EndpointSlice controller lists them.
    const ready = await eventually("readyEndpoints 2 in the entry", entry, (e) => e?.readyEndpoints === 2);
    assert.equal(ready.clusterName, member.name);
    const slices = await getJson<{ items: { endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[] }[] }>(member, ["endpointslices", "-n", NS, "-l", "kubernetes.io/service-name=web"]);
    const addresses = (slices?.items ?? []).flatMap((s) => (s.endpoints ?? []).filter((e) => e.conditions?.ready !== false).flatMap((e) => e.addresses));
    assert.equal(addresses.length, 2, `the member's slices list 2 ready pod IPs (${addresses.join(", ")})`);

    await apply(control, deploymentJson("web", NS, 0));
    await eventually("readyEndpoints 0 in the entry", entry, (e) => e?.readyEndpoints === 0);
  });

  it("reports a change of only the member Service's status.loadBalancer", async () => {
    const address = (e: ServiceEntry | undefined) => e?.status?.loadBalancer?.ingress?.map((i) => i.ip ?? i.hostname).join(",");
    for (const ip of ["192.0.2.10", "192.0.2.11"]) {
      const patch = JSON.stringify({ status: { loadBalancer: { ingress: [{ ip }] } } });
      await kubectl(member, ["patch", "service", "web", "-n", NS, "--subresource=status", "--type=merge", "-p", patch]);
      // Promptly: the agent reports on the Service watch's event (no periodic resync to wait for).
      await eventually(`the entry's load balancer ${ip}`, entry, (e) => address(e) === ip, 15_000);
    }
  });
});
