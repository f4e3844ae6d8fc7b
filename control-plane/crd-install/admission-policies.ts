// ValidatingAdmissionPolicies the control plane installs with its CRDs: checks a CRD's own CEL
// cannot make because they read metadata.namespace (a CRD's rules see only name and generateName),
// and warnings, which a CRD's rules cannot give. Run by the apiserver itself, so they hold whether
// or not the admission webhook is on.
import type { KubeObject } from "../../shared/api/types.ts";

/** The policy (and its binding) that keeps a namespaced policy's selectors in its own namespace. */
export const POLICY_NAMESPACE_ADMISSION = "flotilla-policy-namespace";

/** The policy (and its binding) that warns of Karmada's deprecated purge mode names (issue 39). */
export const DEPRECATED_PURGE_MODE_ADMISSION = "flotilla-deprecated-purge-mode";

const labels = { "app.kubernetes.io/part-of": "flotilla" };

// One warning per failover behaviour that says Immediately or Graciously (scheduling/purge-mode.ts reads them).
function purgeModeWarning(behavior: "application" | "cluster"): Record<string, string> {
  const field = `object.spec.failover.${behavior}.purgeMode`;
  return {
    expression: `!has(object.spec) || !has(object.spec.failover) || !has(object.spec.failover.${behavior}) || !has(${field}) || !(${field} in ['Immediately', 'Graciously'])`,
    messageExpression: `'spec.failover.${behavior}.purgeMode: ' + ${field} + ' is deprecated (Karmada v1.19 removed it); Flotilla reads it as ' + (${field} == 'Immediately' ? 'Directly' : 'Gracefully') + ', write that instead'`,
  };
}

/**
 * Karmada v1.18's deprecated purge mode names, Immediately and Graciously: accepted, and the
 * apiserver answers the apply with a warning (validationActions Warn) naming the field and the
 * name to write instead.
 */
function deprecatedPurgeModes(): KubeObject[] {
  const policy: KubeObject = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: DEPRECATED_PURGE_MODE_ADMISSION, labels },
    spec: {
      failurePolicy: "Ignore",
      matchConstraints: {
        resourceRules: [{ apiGroups: ["flotilla.dev"], apiVersions: ["*"], operations: ["CREATE", "UPDATE"], resources: ["propagationpolicies", "clusterpropagationpolicies"] }],
      },
      validations: [purgeModeWarning("application"), purgeModeWarning("cluster")],
    },
  };
  const binding: KubeObject = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: DEPRECATED_PURGE_MODE_ADMISSION, labels },
    spec: { policyName: DEPRECATED_PURGE_MODE_ADMISSION, validationActions: ["Warn"] },
  };
  return [policy, binding];
}

/**
 * Karmada's rule (ValidatePropagationSpec): a PropagationPolicy's or OverridePolicy's
 * resourceSelectors[].namespace is unset or the policy's own namespace; another is refused with a
 * message naming the selector. Then the deprecated purge modes' warning.
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
  return [policy, binding, ...deprecatedPurgeModes()];
}
