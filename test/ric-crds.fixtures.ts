// The ResourceInterpreterCustomization CRD's test cases (test/crds.test.ts runs them against a
// real apiserver): Karmada's own example manifest with only its apiVersion changed, a customization
// with every operation, and objects the schema refuses with the field and the reason.
import type { KubernetesObject } from "@kubernetes/client-node";
import { API_VERSION } from "../shared/api/types.ts";

type Obj = Record<string, unknown>;
export type RicFixture = KubernetesObject & Obj;

export const ric = (name: string, spec: Obj | undefined): RicFixture => ({
  apiVersion: API_VERSION,
  kind: "ResourceInterpreterCustomization",
  metadata: { name },
  ...(spec === undefined ? {} : { spec }),
});

/**
 * karmada-io/karmada examples/karmadactlinterpret/resourceinterpretercustomization.yaml, as
 * published, with `apiVersion: config.karmada.io/v1alpha1` changed to flotilla.dev's.
 */
export const karmadaExampleManifest = `apiVersion: ${API_VERSION}
kind: ResourceInterpreterCustomization
metadata:
  name: declarative-configuration-example
spec:
  target:
    apiVersion: apps/v1
    kind: Deployment
  customizations:
    replicaResource:
      luaScript: >
        local kube = require("kube")
        function GetReplicas(obj)
          replica = obj.spec.replicas
          requirement = kube.accuratePodRequirements(obj.spec.template)
          return replica, requirement
        end
    replicaRevision:
      luaScript: >
        function ReviseReplica(obj, desiredReplica)
          obj.spec.replicas = desiredReplica
          return obj
        end
    retention:
      luaScript: >
        function Retain(desiredObj, observedObj)
          desiredObj.spec.paused = observedObj.spec.paused
          return desiredObj
        end
    statusAggregation:
      luaScript: >
        function AggregateStatus(desiredObj, statusItems)
          if statusItems == nil then
            return desiredObj
          end
          if desiredObj.status == nil then
            desiredObj.status = {}
          end
          replicas = 0
          for i = 1, #statusItems do
            if statusItems[i].status ~= nil and statusItems[i].status.replicas ~= nil then
              replicas = replicas + statusItems[i].status.replicas
            end
          end
          desiredObj.status.replicas = replicas
          return desiredObj
        end
    statusReflection:
      luaScript: >
        function ReflectStatus (observedObj)
          return observedObj.status
        end
    healthInterpretation:
      luaScript: >
        function InterpretHealth(observedObj)
          return observedObj.status.readyReplicas == observedObj.spec.replicas
        end
    dependencyInterpretation:
      luaScript: >
        local kube = require("kube")
        function GetDependencies(desiredObj)
          refs = kube.getPodDependencies(desiredObj.spec.template, desiredObj.metadata.namespace)
          return refs
        end
`;

/** Every operation Karmada's CustomizationRules has, componentResource included. */
export const everyOperation = ric("every-operation", {
  target: { apiVersion: "example.io/v1", kind: "Widget" },
  customizations: {
    retention: { luaScript: "function Retain(d, o) return d end" },
    replicaResource: { luaScript: "function GetReplicas(o) return o.spec.size, {} end" },
    componentResource: { luaScript: "function GetComponents(o) return {} end" },
    replicaRevision: { luaScript: "function ReviseReplica(o, n) o.spec.size = n return o end" },
    statusReflection: { luaScript: "function ReflectStatus(o) return o.status end" },
    statusAggregation: { luaScript: "function AggregateStatus(d, items) return d end" },
    healthInterpretation: { luaScript: "function InterpretHealth(o) return true end" },
    dependencyInterpretation: { luaScript: "function GetDependencies(o) return {} end" },
  },
});

export interface RicBadCase {
  what: string;
  obj: RicFixture;
  /** Every pattern must match the apiserver's message. */
  message: RegExp[];
}

const target = { apiVersion: "apps/v1", kind: "Deployment" };
export const badRic: RicBadCase[] = [
  { what: "a customization without spec", obj: ric("no-spec", undefined), message: [/spec: Required value/] },
  { what: "a customization without target", obj: ric("no-target", { customizations: {} }), message: [/spec\.target: Required value/] },
  { what: "a customization without customizations", obj: ric("no-rules", { target }), message: [/spec\.customizations: Required value/] },
  { what: "a target without kind", obj: ric("no-kind", { target: { apiVersion: "apps/v1" }, customizations: {} }), message: [/spec\.target\.kind: Required value/] },
  { what: "an empty target apiVersion", obj: ric("empty-version", { target: { apiVersion: "", kind: "Deployment" }, customizations: {} }), message: [/spec\.target\.apiVersion/, /at least 1 chars/] },
  { what: "a rule without luaScript", obj: ric("no-script", { target, customizations: { healthInterpretation: {} } }), message: [/spec\.customizations\.healthInterpretation\.luaScript: Required value/] },
  { what: "a luaScript that is not a string", obj: ric("script-number", { target, customizations: { retention: { luaScript: 5 } } }), message: [/spec\.customizations\.retention\.luaScript/, /string/] },
];
