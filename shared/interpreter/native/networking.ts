// Ingress (networking.k8s.io/v1), as Karmada's default interpreter reads it. Pure.
import type { KindInterpreter } from "../interpreter.ts";
import { hasAddress, mergeIngress } from "./load-balancer.ts";
import { at, copy, isRecord, rec, records, statuses, str } from "./object.ts";
import { sortDependencies } from "./pod-template.ts";
import { namespaceOf } from "./workload.ts";

export const ingress: KindInterpreter = {
  reflectStatus: (observed) => (isRecord(observed.status) ? structuredClone(observed.status) : undefined),
  aggregateStatus: (obj, items) => {
    const points = mergeIngress(statuses(items), false);
    const out = copy(obj);
    out.status = { loadBalancer: points.length > 0 ? { ingress: points } : {} };
    return out;
  },
  interpretHealth: (obj) => hasAddress(rec(obj.status)),
  // The TLS certificates' Secrets. A TLS entry without a secretName uses the controller's default
  // certificate: nothing to propagate (Karmada emits an empty name and then refuses it).
  getDependencies: (obj) =>
    sortDependencies(
      records(at(obj, "spec", "tls"))
        .map((t) => str(t.secretName))
        .filter((name) => name !== "")
        .map((name) => ({ apiVersion: "v1", kind: "Secret", namespace: namespaceOf(obj), name })),
    ),
};
