// ResourceInterpreterCustomization (issue 21): Karmada's config.karmada.io/v1alpha1 kind under
// Flotilla's group, with Karmada's field names, so a Karmada manifest ports by changing its
// apiVersion. The schema is control-plane/crds/resourceinterpretercustomizations.yaml: keep in step.
import type { KubeObject } from "./types.ts";

/** One operation's rule: a Lua script that defines the operation's function. */
export interface LuaRule {
  luaScript: string;
}

/** Karmada's CustomizationRules: one optional script per operation. */
export interface CustomizationRules {
  retention?: LuaRule;
  replicaResource?: LuaRule;
  componentResource?: LuaRule;
  replicaRevision?: LuaRule;
  statusReflection?: LuaRule;
  statusAggregation?: LuaRule;
  healthInterpretation?: LuaRule;
  dependencyInterpretation?: LuaRule;
}

export interface ResourceInterpreterCustomizationSpec {
  /** The kind the customization applies to. */
  target: { apiVersion: string; kind: string };
  customizations: CustomizationRules;
}

export interface ResourceInterpreterCustomization extends KubeObject {
  spec: ResourceInterpreterCustomizationSpec;
}
