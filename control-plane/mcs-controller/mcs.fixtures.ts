// What the mcs-controller tests share: Caches over fake informers, Clusters in a given state, and
// records of the conformance suite's hello export.
import { KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import type { MemberServiceExport, MemberServiceExportSpec } from "../../shared/api/mcs.ts";
import type { Cluster, KubeObject } from "../../shared/api/types.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { Caches } from "../caches/caches.ts";
import { type FakeInformer, fakeInformers } from "../caches/fake-informer.fixtures.ts";
import { exportRecord } from "./export-record.ts";

export const silent = pino({ level: "silent" });

export function mcsCaches() {
  const fakes = fakeInformers();
  const caches = new Caches(new KubeConfig(), {} as KubeRest, silent, fakes.make);
  return { caches, clusters: fakes.of<Cluster>("clusters"), records: fakes.of<MemberServiceExport>("memberserviceexports") };
}

/** A Cluster, Ready or not, and being unjoined or not. */
export function clusterOf(name: string, state: { ready?: boolean; unjoining?: boolean } = {}): Cluster {
  return {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "Cluster",
    metadata: { name, uid: `uid-${name}`, ...(state.unjoining ? { deletionTimestamp: "2026-11-30T00:00:00Z" } : {}) },
    spec: {},
    status: { conditions: [{ type: "Ready", status: state.ready === false ? "False" : "True", reason: "", message: "", lastTransitionTime: "2026-11-30T00:00:00Z" }] },
  } as Cluster;
}

/** The record a spec is written as, with the uid the apiserver would give it. */
export function recordOf(spec: MemberServiceExportSpec): MemberServiceExport {
  const r = exportRecord(spec);
  return { ...r, metadata: { ...r.metadata, uid: `uid-${r.metadata.name}`, resourceVersion: "1" } };
}

/** An informer that has not listed yet. */
export function unsynced<T extends KubeObject>(inf: FakeInformer<T>): void {
  Object.defineProperty(inf, "synced", { value: false });
}
