// Test support for the override tests: objects, policies and the table runners they share.
import assert from "node:assert/strict";
import { it } from "node:test";
import type { Cluster, ClusterSpec, KubeObject, OverridePolicy, Overriders, ResourceSelector, RuleWithCluster } from "../../shared/api/types.ts";
import { applyOverrides } from "./overrides.ts";

export const DIGEST = "sha256:" + "ab".repeat(32);

export function cluster(name: string, labels: Record<string, string> = {}, spec: ClusterSpec = {}): Cluster {
  return { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name, labels }, spec };
}

export const member1 = cluster("member1", { env: "prod" }, { provider: "aws", region: "us-east-1" });
export const member2 = cluster("member2", { env: "dev" }, { provider: "gcp", region: "europe-west1" });

export function op(namespace: string, name: string, rules: RuleWithCluster[], resourceSelectors?: ResourceSelector[]): OverridePolicy {
  return {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "OverridePolicy",
    metadata: { namespace, name },
    spec: { ...(resourceSelectors ? { resourceSelectors } : {}), overrideRules: rules },
  };
}

export function cop(name: string, rules: RuleWithCluster[], resourceSelectors?: ResourceSelector[]): OverridePolicy {
  return {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ClusterOverridePolicy",
    metadata: { name },
    spec: { ...(resourceSelectors ? { resourceSelectors } : {}), overrideRules: rules },
  };
}

/** One policy default/web with one rule for every cluster. */
export function rule(overriders: Overriders): OverridePolicy[] {
  return [op("default", "web", [{ overriders }])];
}

export function podSpec(): Record<string, unknown> {
  return {
    initContainers: [{ name: "init", image: `docker.io/library/busybox@${DIGEST}` }],
    containers: [
      { name: "web", image: "nginx:1.25", command: ["nginx"], args: ["-g", "daemon off;"] },
      { name: "sidecar", image: "registry.k8s.io/pause:3.9" },
    ],
  };
}

export function deployment(): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { namespace: "default", name: "web", labels: { app: "web" }, annotations: { note: "a" } },
    spec: { replicas: 3, template: { metadata: { labels: { app: "web" } }, spec: podSpec() } },
  };
}

export function pod(): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { namespace: "default", name: "p" }, spec: podSpec() };
}

export function cronJob(): KubeObject {
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { namespace: "default", name: "c" },
    spec: { schedule: "* * * * *", jobTemplate: { spec: { template: { spec: podSpec() } } } },
  };
}

export function configMap(): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "default", name: "cm" }, data: { image: "nginx:1.25" } };
}

/** The value at a JSON pointer, undefined when absent. */
export function at(obj: unknown, pointer: string): unknown {
  let node = obj;
  for (const token of pointer.split("/").slice(1).map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"))) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

export const DEPLOY = "/spec/template/spec";
export const WEB = `${DEPLOY}/containers/0`;
export const SIDECAR = `${DEPLOY}/containers/1`;
export const INIT = `${DEPLOY}/initContainers/0`;

export interface OkCase {
  name: string;
  obj?: KubeObject;
  cluster?: Cluster;
  policies: OverridePolicy[];
  /** JSON pointer → expected value (undefined: absent). */
  want: Record<string, unknown>;
  applied?: string[];
}

export function runOkCases(cases: OkCase[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const result = applyOverrides(c.obj ?? deployment(), c.cluster ?? member1, c.policies);
      assert.ok(result.ok, result.ok ? "" : result.message);
      for (const [pointer, value] of Object.entries(c.want)) assert.deepEqual(at(result.object, pointer), value, pointer);
      if (c.applied) assert.deepEqual(result.applied, c.applied);
    });
  }
}

export interface FailCase {
  name: string;
  obj?: KubeObject;
  cluster?: Cluster;
  policies: OverridePolicy[];
  message: string;
}

export function runFailCases(cases: FailCase[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const result = applyOverrides(c.obj ?? deployment(), c.cluster ?? member1, c.policies);
      assert.deepEqual(result, { ok: false, message: c.message });
    });
  }
}
