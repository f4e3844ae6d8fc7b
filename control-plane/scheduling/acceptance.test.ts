import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, TargetCluster } from "../../shared/api/types.ts";
import { admittedClusters, clusterAccepted } from "./acceptance.ts";

const cluster = (name: string, accepted?: boolean): Cluster => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name }, spec: accepted === undefined ? {} : { hubAcceptsClient: accepted } });

describe("admittedClusters", () => {
  const fleet = [cluster("accepted", true), cluster("refused", false), cluster("new"), cluster("holds")];
  const cases: { name: string; previous: TargetCluster[] | undefined; require: boolean; want: string[] }[] = [
    { name: "acceptance not required: every cluster", previous: undefined, require: false, want: ["accepted", "refused", "new", "holds"] },
    { name: "required: only accepted clusters are new targets", previous: undefined, require: true, want: ["accepted"] },
    { name: "required: a cluster the template is on keeps it (nothing running is removed)", previous: [{ name: "holds", replicas: 2 }], require: true, want: ["accepted", "holds"] },
    { name: "required: an empty previous placement admits no unaccepted one", previous: [], require: true, want: ["accepted"] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(admittedClusters(fleet, c.previous, c.require).map((x) => x.metadata.name), c.want));
  }
  it("only spec.hubAcceptsClient: true accepts", () => {
    assert.deepEqual(fleet.map(clusterAccepted), [true, false, false, false]);
  });
});
