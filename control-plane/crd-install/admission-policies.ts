// ValidatingAdmissionPolicies the control plane installs with its CRDs: checks a CRD's own CEL
// cannot make because they read metadata.namespace (a CRD's rules see only name and generateName).
// Run by the apiserver itself, so they hold whether or not the admission webhook is on.
import type { KubeObject } from "../../shared/api/types.ts";

/** The policy (and its binding) that keeps a namespaced policy's selectors in its own namespace. */
export const POLICY_NAMESPACE_ADMISSION = "flotilla-policy-namespace";

/**
 * Karmada's rule (ValidatePropagationSpec): a PropagationPolicy's or OverridePolicy's
 * resourceSelectors[].namespace is unset or the policy's own namespace; another is refused with a
 * message naming the selector.
 */
export function admissionPolicies(): KubeObject[] {
  const policy: KubeObject = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: POLICY_NAMESPACE_ADMISSION, labels: { "app.kubernetes.io/part-of": "flotilla" } },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: [{ apiGroups: ["flotilla.dev"], apiVersions: ["*"], operations: ["CREATE", "UPDATE"], resources: ["propagationpolicies", "overridepolicies"] }],
      },
      validations: [
        {
          expression: "!has(object.spec.resourceSelectors) || object.spec.resourceSelectors.all(s, !has(s.namespace) || s.namespace == '' || s.namespace == object.metadata.namespace)",
          messageExpression:
            "'spec.resourceSelectors[].namespace: a ' + object.kind + ' selects only in its own namespace (' + object.metadata.namespace + '): leave namespace unset or name it, or use a Cluster' + object.kind + '; not ' + object.spec.resourceSelectors.filter(s, has(s.namespace) && s.namespace != '' && s.namespace != object.metadata.namespace).map(s, s.namespace).join(', ')",
          reason: "Invalid",
        },
      ],
    },
  };
  const binding: KubeObject = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: POLICY_NAMESPACE_ADMISSION, labels: { "app.kubernetes.io/part-of": "flotilla" } },
    spec: { policyName: POLICY_NAMESPACE_ADMISSION, validationActions: ["Deny"] },
  };
  return [policy, binding];
}
