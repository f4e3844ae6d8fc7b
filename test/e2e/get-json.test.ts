// getJson reads in this process (rest-get.ts) what `kubectl get -o json` prints: the same JSON for
// every argument form the e2e files use, on a real member cluster with Flotilla's CRDs.
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { installCrds } from "../../control-plane/crd-install/crds.ts";
import { type Cluster, startCluster } from "../env/cluster.ts";
import { parseGetArgs } from "./get-args.ts";
import { apply, deploymentJson, eventually, getJson, kubectl, kubectlGetJson, placementPolicyJson } from "./helpers.ts";
import { ASK_KUBECTL, restGet } from "./rest-get.ts";

const NS = "shop";

const widgetCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", shortNames: ["wg"] },
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
  },
};

describe("getJson in process: what kubectl get -o json prints", () => {
  let member: Cluster;

  /** The in-process answer (never left to kubectl), read between two kubectl reads; equal to one of them. */
  async function sameAsKubectl(args: string[]): Promise<unknown> {
    const req = parseGetArgs(args);
    assert.ok(req, `${args.join(" ")} is read in process`);
    let last: { ours: unknown; theirs: unknown } | undefined;
    // Objects the cluster's controllers still write (a status, an event count) may change between
    // reads: a difference counts only when kubectl read the same thing before and after ours.
    for (let attempt = 0; attempt < 5; attempt++) {
      const before = await kubectlGetJson(member, args);
      const ours = await restGet(member.kubeconfigPath, req);
      assert.notEqual(ours, ASK_KUBECTL, `${args.join(" ")} answered in process`);
      const after = await kubectlGetJson(member, args);
      try {
        assert.deepEqual(ours, before);
        return ours;
      } catch {
        // compared with the later read below
      }
      try {
        assert.deepEqual(ours, after);
        return ours;
      } catch {
        last = { ours, theirs: after };
      }
      try {
        assert.deepEqual(before, after);
        break; // kubectl read it twice the same: the difference is ours
      } catch {
        // it changed under us: read again
      }
    }
    assert.deepEqual(last?.ours, last?.theirs, `${args.join(" ")}: in process as kubectl`);
    return last?.ours;
  }

  before(async () => {
    member = await startCluster({ name: "member1", role: "member", dir: join(tmpdir(), `flotilla-get-json-${process.pid}`) });
    await installCrds(member.kubeConfig());
    await kubectl(member, ["create", "namespace", NS]);
    await apply(member, deploymentJson("web", NS, 2));
    await apply(member, placementPolicyJson("web", NS, ["member1"]));
    await kubectl(member, ["create", "configmap", "a", "-n", NS, "--from-literal=k=v"]);
    await kubectl(member, ["label", "configmap", "a", "-n", NS, "tier=one"]);
    await kubectl(member, ["create", "configmap", "b", "-n", NS, "--from-literal=k=w"]);
    await apply(member, JSON.stringify({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "mine", namespace: NS }, spec: { holderIdentity: "me" } }));
    await eventually("web Available", () => kubectlGetJson<{ status?: { availableReplicas?: number } }>(member, ["deploy", "-n", NS, "web"]), (d) => d.status?.availableReplicas === 2, 90_000);
  });
  after(async () => {
    await member?.stop();
  });

  it("reads one object the same, by every name of its kind", async () => {
    const forms = [
      ["deploy", "-n", NS, "web"],
      ["deploy", "web", "-n", NS],
      ["deployment", "-n", NS, "web"],
      ["deployments", "--namespace", NS, "web"],
      ["Deployment", "-n", NS, "web"],
      ["deployments.apps", "-n", NS, "web"],
      ["deployment.v1.apps", "-n", NS, "web"],
      ["deployment/web", "-n", NS],
      ["configmap", "-n", NS, "a"],
      ["cm", "-n", NS, "b"],
      ["namespace", NS],
      ["ns", NS, "-n", "ignored-for-a-cluster-scoped-kind"],
      ["lease", "-n", NS, "mine"],
      ["clusterrolebinding", "cluster-admin"],
      ["crd", "propagationpolicies.flotilla.dev"],
      ["pp", "-n", NS, "web"],
      ["propagationpolicy", "-n", NS, "web"],
      ["propagationpolicies.flotilla.dev", "-n", NS, "web"],
    ];
    for (const args of forms) {
      const got = (await sameAsKubectl(args)) as { metadata?: { managedFields?: unknown } } | undefined;
      assert.ok(got?.metadata, `${args.join(" ")} found`);
      assert.equal(got.metadata.managedFields, undefined, "kubectl leaves managedFields out");
    }
    const shown = (await sameAsKubectl(["pp", "-n", NS, "web", "--show-managed-fields"])) as { metadata: { managedFields?: unknown[] } };
    assert.ok((shown.metadata.managedFields?.length ?? 0) > 0, "--show-managed-fields keeps them");
  });

  it("reads lists the same: in a namespace, by label and field selector, across namespaces, empty", async () => {
    const forms = [
      ["cm", "-n", NS],
      ["cm"],
      ["cm", "-n", NS, "-l", "tier=one"],
      ["rs", "-n", NS, "-l", "app=web"],
      ["replicasets", "-n", NS, "-l", "app=web"],
      ["pods", "-n", NS, "-l", "app=web"],
      ["pods", "-A"],
      ["pods", "--all-namespaces"],
      ["events", "-n", NS, "--field-selector", "involvedObject.kind=Deployment,involvedObject.name=web"],
      ["endpointslices", "-n", "default", "-l", "kubernetes.io/service-name=kubernetes"],
      ["ns"],
      ["pp", "-n", NS],
      ["rb", "-n", NS],
      ["rb", "-n", NS, "-l", "flotilla.dev/policy-name=web"],
      ["clusters"],
      ["cm", "-n", "no-such-namespace"],
    ];
    for (const args of forms) {
      const got = (await sameAsKubectl(args)) as { kind: string; items: unknown[] };
      assert.equal(got.kind, "List", `${args.join(" ")} is a List`);
    }
    const pods = (await sameAsKubectl(["pods", "-n", NS, "-l", "app=web"])) as { items: { kind: string }[] };
    assert.deepEqual(
      pods.items.map((p) => p.kind),
      ["Pod", "Pod"],
    );
    const rb = (await sameAsKubectl(["rb", "-n", NS])) as { items: unknown[] };
    assert.deepEqual(rb.items, [], "no bindings in a member");
  });

  it("reads NotFound as undefined, as kubectl does", async () => {
    for (const args of [
      ["deploy", "-n", NS, "nothing"],
      ["deploy", "-n", "no-such-namespace", "web"],
      ["cluster", "member9"],
      ["rb", "-n", NS, "web-deployment"],
      ["namespace", "nothing"],
    ]) {
      assert.equal(await sameAsKubectl(args), undefined, `${args.join(" ")} is not there`);
      assert.equal(await getJson(member, args), undefined);
    }
  });

  it("finds a kind installed after the first read, and leaves one no longer served to kubectl", async () => {
    await sameAsKubectl(["cm", "-n", NS, "a"]); // discovery read before the CRD exists
    await apply(member, JSON.stringify(widgetCrd));
    await kubectl(member, ["wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=30s"]);
    await apply(member, JSON.stringify({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w1", namespace: NS }, spec: { size: 3 } }));
    // Discovery is read again at most once a second on a miss (MISS_REREAD_MS).
    await eventually("widgets read in process", () => restGet(member.kubeconfigPath, { resource: "widgets.example.com", name: "w1", namespace: NS }), (w) => w !== ASK_KUBECTL);
    for (const args of [
      ["widgets.example.com", "-n", NS, "w1"],
      ["widget", "-n", NS, "w1"],
      ["wg", "-n", NS, "w1"],
      ["widgets", "-n", NS],
    ])
      await sameAsKubectl(args);
    await kubectl(member, ["delete", "crd", "widgets.example.com", "--wait=true"]);
    // Gone from the apiserver, still in the discovery read: kubectl words it ("the server doesn't have a resource type").
    await eventually("widgets left to kubectl", () => restGet(member.kubeconfigPath, { resource: "widgets.example.com", name: "w1", namespace: NS }), (w) => w === ASK_KUBECTL);
    const theirs = await kubectlGetJson(member, ["widgets.example.com", "-n", NS, "w1"]).then(
      (v) => ({ value: v }),
      (err: Error) => ({ error: err.message }),
    );
    const ours = await getJson(member, ["widgets.example.com", "-n", NS, "w1"]).then(
      (v) => ({ value: v }),
      (err: Error) => ({ error: err.message }),
    );
    assert.deepEqual(ours, theirs, "getJson answers as kubectl");
  });

  it("leaves to kubectl what it does not read, with kubectl's answer", async () => {
    const args = ["deploy,rs", "-n", NS, "-l", "app=web"];
    assert.equal(parseGetArgs(args), undefined);
    assert.deepEqual(await getJson(member, args), await kubectlGetJson(member, args));
  });
});
