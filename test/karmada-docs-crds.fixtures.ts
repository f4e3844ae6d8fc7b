// Three objects from Karmada's documentation (v1.18) that Flotilla once refused (issue 39), each
// with only its own apiVersion changed to flotilla.dev/v1alpha1, for test/crds.test.ts.
import { API_VERSION } from "../shared/api/types.ts";

const NS = "default";

/** Karmada's CronFederatedHPA scaling a FederatedHPA, which it names by Karmada's group. */
export const karmadaCronOfFhpaManifest = `apiVersion: ${API_VERSION}
kind: CronFederatedHPA
metadata:
  name: nginx-cronfhpa-karmada
  namespace: ${NS}
spec:
  scaleTargetRef:
    apiVersion: autoscaling.karmada.io/v1alpha1
    kind: FederatedHPA
    name: nginx-fhpa
  rules:
    - name: "scale-up"
      schedule: "*/1 * * * *"
      targetMinReplicas: 5
      targetMaxReplicas: 10
`;

/** A PropagationPolicy of Karmada's docs for the nginx Deployment, with its placement and more. */
const nginxPolicy = (name: string, rest: string) => `apiVersion: ${API_VERSION}
kind: PropagationPolicy
metadata:
  name: ${name}
  namespace: ${NS}
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: nginx
${rest}`;

/** A PropagationPolicy whose spread constraint names neither spreadByField nor spreadByLabel (Karmada: by cluster). */
export const karmadaSpreadManifest = nginxPolicy("nginx-spread", `  placement:
    clusterAffinity:
      clusterNames:
        - member1
        - member2
        - member3
    spreadConstraints:
      - maxGroups: 2
        minGroups: 2
`);

/** Karmada's application failover example, with v1.18's deprecated purgeMode Graciously. */
export const karmadaGraciouslyManifest = nginxPolicy("nginx-failover", `  failover:
    application:
      decisionConditions:
        tolerationSeconds: 300
      gracePeriodSeconds: 600
      purgeMode: Graciously
  placement:
    clusterAffinity:
      clusterNames:
        - member1
        - member2
`);
