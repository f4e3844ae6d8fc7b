import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../shared/api/types.ts";
import { certificateRefusal } from "./certificate-refusal.ts";

const cluster = (uid: string | undefined): Cluster => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: "member1", ...(uid ? { uid } : {}) }, spec: {} });

describe("certificateRefusal", () => {
  const cases: { name: string; certUid: string | undefined; current: Cluster | undefined; allowWithoutUid: boolean; refused: RegExp | undefined }[] = [
    { name: "bound to the current Cluster", certUid: "uid-2", current: cluster("uid-2"), allowWithoutUid: false, refused: undefined },
    { name: "no Cluster of that name", certUid: "uid-2", current: undefined, allowWithoutUid: true, refused: /not registered \(no Cluster object\)/ },
    { name: "bound to a deleted and re-created Cluster", certUid: "uid-1", current: cluster("uid-2"), allowWithoutUid: true, refused: /earlier registration of cluster member1 .*revoked; .*flotilla certs agent --cluster member1 --kubeconfig/ },
    { name: "a uid against a Cluster without one", certUid: "uid-1", current: cluster(undefined), allowWithoutUid: false, refused: /earlier registration/ },
    { name: "no uid: refused by default, with how to re-issue", certUid: undefined, current: cluster("uid-2"), allowWithoutUid: false, refused: /bound to no Cluster uid .*refused; register the member again .*flotilla certs agent --cluster member1 --kubeconfig/ },
    { name: "no uid, accepted when the control plane allows it", certUid: undefined, current: cluster("uid-2"), allowWithoutUid: true, refused: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = certificateRefusal("member1", c.certUid, c.current, c.allowWithoutUid);
      if (c.refused === undefined) assert.equal(got, undefined);
      else assert.match(got ?? "", c.refused);
    });
  }
});
