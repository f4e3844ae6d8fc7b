// A namespaced CRD of one served version `v1` whose objects have an integer `spec.size`: the custom
// kind the chaos run and the upgrade test propagate (a dotted group, like an operator's).
export function sizedCrd(group: string, kind: string, plural: string): Record<string, unknown> {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "integer" } } } } } } }],
    },
  };
}
