// The Rollout call's shell: what it reads, what it writes to the binding's status subresource and
// how it takes a conflicting write. The binding lives in a minimal stand-in for the apiserver that
// keeps a resourceVersion and refuses a stale one with 409, as the real one does; the real
// apiserver's side is the rollout e2e test's.
import assert from "node:assert/strict";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { describe, it } from "node:test";
import type { ResourceBinding, RolloutState } from "../../shared/api/types.ts";
import { KubeError, type KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import type { Caches } from "../caches/caches.ts";
import { RpcError } from "../rpc.ts";
import { AdminRollout, ROLLOUT_ADMIN_FIELD_MANAGER, rolloutMethod } from "./admin-rollout.ts";
import type { TemplateResolver } from "../kinds/template-resolver.ts";
import { progressingPastCanary, T0 } from "./rollout.fixtures.ts";

const PATH = "/apis/flotilla.dev/v1alpha1/namespaces/adm/resourcebindings/web-deployment";
const progressing = progressingPastCanary();

function bindingWith(rollout: RolloutState | undefined, strategy = true): ResourceBinding {
  return {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ResourceBinding",
    metadata: { name: "web-deployment", namespace: "adm", resourceVersion: "1" },
    spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "adm", name: "web" }, clusters: [{ name: "member1" }, { name: "member2" }, { name: "member3" }], ...(strategy ? { rollout: { groups: [{ name: "canary", clusterNames: ["member1"] }] } } : {}) },
    ...(rollout === undefined ? {} : { status: { rollout } }),
  };
}

/** The binding as the apiserver has it; `between`: the controller's writes, each landing between a read and a patch. */
function world(initial: ResourceBinding, between: ((b: ResourceBinding) => void)[] = []) {
  let stored = structuredClone(initial);
  const pending = [...between];
  const patches: { path: string; contentType: string | undefined; fieldManager: string | undefined; body: { metadata: { resourceVersion: string }; status: { rollout: Record<string, unknown> | null } } }[] = [];
  const bump = () => (stored.metadata.resourceVersion = String(Number(stored.metadata.resourceVersion) + 1));
  const rest = {
    get: async (path: string) => {
      assert.equal(path, PATH);
      return structuredClone(stored);
    },
    request: async (method: string, path: string, init: { body: (typeof patches)[number]["body"]; contentType?: string; query?: Record<string, string> }) => {
      assert.equal(method, "PATCH");
      patches.push({ path, contentType: init.contentType, fieldManager: init.query?.fieldManager, body: init.body });
      const write = pending.shift();
      if (write !== undefined) {
        write(stored);
        bump();
      }
      if (init.body.metadata.resourceVersion !== stored.metadata.resourceVersion) throw new KubeError(409, "Conflict", "the object has been modified");
      const next = structuredClone(stored);
      const merged: Record<string, unknown> = { ...(next.status?.rollout ?? {}) };
      for (const [k, v] of Object.entries(init.body.status.rollout ?? {})) {
        if (v === null) delete merged[k];
        else merged[k] = v;
      }
      next.status = { ...next.status, rollout: merged as unknown as RolloutState };
      stored = next;
      bump();
      return structuredClone(stored);
    },
  } as unknown as KubeRest;
  const caches = { bindingOf: () => stored, clusters: { get: () => undefined } } as unknown as Caches;
  const resolver = { resolve: async () => ({ apiVersion: "apps/v1", kind: "Deployment", namespace: "adm", name: "web", path: "/apis/apps/v1/namespaces/adm/deployments/web" }) } as unknown as TemplateResolver;
  return { admin: new AdminRollout({ caches, rest, resolver, log: silentLogger() }), patches, stored: () => stored };
}

const template = { apiVersion: "", kind: "deploy", namespace: "adm", name: "web" };
const refusal = async (p: Promise<unknown>, code: GrpcStatus, message: RegExp) => {
  const err = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof RpcError, String(err));
  assert.equal(err.code, code);
  assert.match(err.message, message);
};

describe("Admin API Rollout", () => {
  it("status is a read, the commands writes", () => {
    assert.equal(rolloutMethod({ template, verb: "status", group: "" }), "rolloutStatus");
    assert.equal(rolloutMethod({ template, verb: "", group: "" }), "rolloutStatus");
    for (const verb of ["pause", "resume", "approve", "abort", "undo", "nonsense"]) assert.equal(rolloutMethod({ template, verb, group: "" }), "rollout");
  });

  it("status lays out the state by group and writes nothing", async () => {
    const w = world(bindingWith(progressing));
    const res = await w.admin.rollout({ template, verb: "status", group: "" });
    assert.deepEqual(res.template, { apiVersion: "apps/v1", kind: "Deployment", namespace: "adm", name: "web" });
    assert.equal(res.phase, "Progressing");
    assert.deepEqual(res.groups.map((g) => [g.name, g.clusters.map((c) => `${c.name}=${c.phase}`)]), [["canary", ["member1=Succeeded"]], ["rest", ["member2=Waiting", "member3=Waiting"]]]);
    assert.equal(w.patches.length, 0);
  });

  it("pause writes status.rollout under the binding's resourceVersion, as flotilla-rollout-admin, and answers with the line and the new state", async () => {
    const w = world(bindingWith(progressing));
    const res = await w.admin.rollout({ template, verb: "pause", group: "" });
    assert.equal(res.change, "paused the rollout of revision r2 (Progressing → Paused)");
    assert.equal(res.phase, "Paused");
    assert.equal(res.paused, true);
    assert.deepEqual(w.patches.map((p) => [p.path, p.contentType, p.fieldManager, p.body.metadata.resourceVersion]), [[`${PATH}/status`, "application/merge-patch+json", ROLLOUT_ADMIN_FIELD_MANAGER, "1"]]);
    assert.equal(w.stored().status?.rollout?.phase, "Paused");
    assert.equal(w.stored().status?.rollout?.clusters.length, 3);
  });

  it("the controller's writes in between: reads again and decides on what it wrote, so neither write is lost", async () => {
    const starts = (b: ResourceBinding) => Object.assign(b.status?.rollout?.clusters[1] ?? {}, { revision: "r2", phase: "Updating" });
    const w = world(bindingWith(progressing), [starts, () => undefined]);
    await w.admin.rollout({ template, verb: "pause", group: "" });
    assert.deepEqual(w.patches.map((p) => p.body.metadata.resourceVersion), ["1", "2", "3"]);
    assert.equal(w.stored().status?.rollout?.paused, true);
    assert.deepEqual(w.stored().status?.rollout?.clusters[1], { name: "member2", revision: "r2", phase: "Updating", since: T0 });
  });

  it("gives up after 5 conflicting writes with ABORTED", async () => {
    const w = world(bindingWith(progressing), Array.from({ length: 5 }, () => () => undefined));
    await refusal(w.admin.rollout({ template, verb: "pause", group: "" }), GrpcStatus.ABORTED, /changed under each of 5 tries/);
    assert.equal(w.patches.length, 5);
    assert.equal(w.stored().status?.rollout?.phase, "Progressing");
  });

  it("a command that makes no sense is FAILED_PRECONDITION with why, and writes nothing", async () => {
    const w = world(bindingWith(progressing));
    await refusal(w.admin.rollout({ template, verb: "resume", group: "" }), GrpcStatus.FAILED_PRECONDITION, /^the rollout of revision r2 is Progressing, not paused$/);
    await refusal(w.admin.rollout({ template, verb: "approve", group: "" }), GrpcStatus.FAILED_PRECONDITION, /waits for no approval/);
    assert.equal(w.patches.length, 0);
  });

  it("no state yet: status explains; a command is refused", async () => {
    const w = world(bindingWith(undefined));
    const res = await w.admin.rollout({ template, verb: "status", group: "" });
    assert.equal(res.phase, "");
    assert.match(res.message, /^no rollout state yet: the rollout controller records one when it first sees Deployment adm\/web's revision$/);
    await refusal(w.admin.rollout({ template, verb: "pause", group: "" }), GrpcStatus.FAILED_PRECONDITION, /^no rollout: /);
  });

  it("a policy without spec.rollout: FAILED_PRECONDITION for status and commands", async () => {
    const w = world(bindingWith(undefined, false));
    for (const verb of ["status", "undo"]) await refusal(w.admin.rollout({ template, verb, group: "" }), GrpcStatus.FAILED_PRECONDITION, /^no rollout: the policy that propagates Deployment adm\/web has no spec\.rollout/);
  });

  it("a bad verb or a group off approve is INVALID_ARGUMENT", async () => {
    const w = world(bindingWith(progressing));
    await refusal(w.admin.rollout({ template, verb: "restart", group: "" }), GrpcStatus.INVALID_ARGUMENT, /unknown rollout verb "restart"/);
    await refusal(w.admin.rollout({ template, verb: "pause", group: "canary" }), GrpcStatus.INVALID_ARGUMENT, /a group is for approve only/);
  });
});
