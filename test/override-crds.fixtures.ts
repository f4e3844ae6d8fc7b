// The OverridePolicy / ClusterOverridePolicy cases of Karmada v1.19's parity (issue 26) that
// test/crds.test.ts runs against a real apiserver: fieldOverrider, the deprecated top-level
// targetCluster + overriders, and policies without rules, which Karmada accepts and refuses alike.
import type { KubernetesObject } from "@kubernetes/client-node";
import { API_VERSION } from "../shared/api/types.ts";

type Obj = Record<string, unknown>;
type Fixture = KubernetesObject & { spec?: Obj };

const NS = "default";
const op = (name: string, spec: Obj): Fixture => ({ apiVersion: API_VERSION, kind: "OverridePolicy", metadata: { name, namespace: NS }, spec });
const cop = (name: string, spec: Obj): Fixture => ({ apiVersion: API_VERSION, kind: "ClusterOverridePolicy", metadata: { name }, spec });
const configMaps = [{ apiVersion: "v1", kind: "ConfigMap" }];
const withField = (fieldOverrider: Obj[]) => ({ overrideRules: [{ overriders: { fieldOverrider } }] });

/** A fieldOverrider with every field, and operation values of every JSON type. */
export const fullFieldOverrider = [
  {
    fieldPath: "/data/config.yaml",
    yaml: [
      { subPath: "/server/port", operator: "replace", value: 9090 },
      { subPath: "/server/hosts/-", operator: "add", value: "c.example" },
      { subPath: "/tls", operator: "add", value: { enabled: true, ciphers: ["a", "b"], ratio: 0.5, note: null } },
      { subPath: "/debug", operator: "remove" },
      // Karmada's webhook refuses a value on remove; here it is kept and ignored (CEL cannot see it).
      { subPath: "/trace", operator: "remove", value: "ignored" },
    ],
  },
  { fieldPath: "/data/settings.json", json: [{ subPath: "", operator: "replace", value: { a: 1 } }, { subPath: "/b", operator: "add", value: "x" }] },
];

/** Override policies the CRDs accept; each must come back with every field it was sent. */
export const validOverrides: Fixture[] = [
  op("field", { resourceSelectors: configMaps, ...withField(fullFieldOverrider) }),
  cop("field", withField(fullFieldOverrider)),
  // Karmada's user guides apply policies without rules: they override nothing.
  op("no-rules", { resourceSelectors: configMaps }),
  cop("empty-rules", { overrideRules: [] }),
  // Karmada does not refuse a rule whose overriders are empty.
  op("empty-overriders", { overrideRules: [{ targetCluster: { clusterNames: ["member1"] }, overriders: {} }, { overriders: { plaintext: [] } }] }),
  // The deprecated form, and what Karmada's webhook lets pass beside overrideRules.
  op("deprecated", { resourceSelectors: configMaps, targetCluster: { clusterNames: ["member1"] }, overriders: { plaintext: [{ path: "/data/a", operator: "add", value: "1" }], fieldOverrider: fullFieldOverrider } }),
  cop("deprecated", { overriders: { labelsOverrider: [{ operator: "add", value: { a: "b" } }] } }),
  op("deprecated-empty-rules", { overrideRules: [], overriders: {} }),
  op("rules-and-deprecated-field", { overrideRules: [{ overriders: { plaintext: [{ path: "/data/a", operator: "add", value: "1" }] } }], overriders: { fieldOverrider: fullFieldOverrider } }),
];

interface BadCase {
  what: string;
  obj: Fixture;
  message: RegExp[];
}

const rulePath = /spec\.overrideRules\[0\]\.overriders\.fieldOverrider\[0\]/;

/** Override policies the CRDs refuse, with what the message must say. */
export const badOverrides: BadCase[] = [
  {
    what: "a fieldOverrider with both json and yaml",
    obj: op("field-both", withField([{ fieldPath: "/data/a", json: [{ subPath: "/x", operator: "remove" }], yaml: [{ subPath: "/x", operator: "remove" }] }])),
    message: [rulePath, /exactly one of json and yaml/],
  },
  {
    what: "a fieldOverrider with neither json nor yaml",
    obj: cop("field-neither", withField([{ fieldPath: "/data/a", yaml: [] }])),
    message: [rulePath, /exactly one of json and yaml/],
  },
  {
    what: "an override rule without overriders (Karmada requires them too)",
    obj: op("no-overriders", { overrideRules: [{ targetCluster: { clusterNames: ["member1"] } }] }),
    message: [/spec\.overrideRules\[0\]\.overriders: Required value/],
  },
  { what: "a fieldOverrider without fieldPath", obj: op("field-no-path", withField([{ yaml: [{ subPath: "/x", operator: "remove" }] }])), message: [/fieldOverrider\[0\]\.fieldPath: Required value/] },
  {
    what: "a fieldPath without a leading /",
    obj: op("field-relative", withField([{ fieldPath: "data/a", yaml: [{ subPath: "/x", operator: "remove" }] }])),
    message: [/fieldOverrider\[0\]\.fieldPath/, /fieldPath must be a JSON pointer starting with "\/"/],
  },
  {
    what: "a fieldPath at metadata.name",
    obj: cop("field-name", withField([{ fieldPath: "/metadata/name", yaml: [{ subPath: "", operator: "replace", value: "x" }] }])),
    message: [/fieldOverrider\[0\]\.fieldPath/, /may not point at the object's apiVersion, kind, metadata\.name or metadata\.namespace/],
  },
  {
    what: "a subPath without a leading /",
    obj: op("sub-relative", withField([{ fieldPath: "/data/a", json: [{ subPath: "x", operator: "remove" }] }])),
    message: [/fieldOverrider\[0\]\.json\[0\]\.subPath/, /subPath must be a JSON pointer starting with "\/"/],
  },
  { what: "an operation without operator", obj: op("sub-no-op", withField([{ fieldPath: "/data/a", yaml: [{ subPath: "/x", value: 1 }] }])), message: [/fieldOverrider\[0\]\.yaml\[0\]\.operator: Required value/] },
  { what: "an unknown operation operator", obj: op("sub-move", withField([{ fieldPath: "/data/a", yaml: [{ subPath: "/x", operator: "move", value: 1 }] }])), message: [/fieldOverrider\[0\]\.yaml\[0\]\.operator: Unsupported value: "move"/] },
  {
    what: "overrideRules beside the deprecated targetCluster (Karmada's webhook refuses it)",
    obj: op("rules-and-target", { overrideRules: [], targetCluster: { clusterNames: ["member1"] } }),
    message: [/spec\.targetCluster/, /overrideRules and targetCluster can't co-exist/],
  },
  {
    what: "overrideRules beside non-empty deprecated overriders (Karmada's webhook refuses it)",
    obj: cop("rules-and-overriders", { overrideRules: [{ overriders: {} }], overriders: { imageOverrider: [{ component: "Tag", operator: "replace", value: "v2" }] } }),
    message: [/spec\.overriders/, /overrideRules and overriders can't co-exist/],
  },
  {
    what: "a bad deprecated overrider (the rule's schema checks it)",
    obj: op("deprecated-bad", { overriders: { plaintext: [{ path: "spec/replicas", value: 1 }] } }),
    message: [/spec\.overriders\.plaintext\[0\]\.path/, /plaintext path must be a JSON pointer starting with "\/"/],
  },
];
