import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../shared/api/types.ts";
import { decideRegistrationRetry, REGISTERED_KEY, REGISTERED_WITH_TOKEN } from "./registration-retry.ts";

const cluster = (annotations: Record<string, string> | undefined, extra: Partial<Cluster["metadata"]> = {}): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name: "m", uid: "uid-1", ...(annotations ? { annotations } : {}), ...extra },
  spec: {},
});
const mine = { [REGISTERED_WITH_TOKEN]: "abcdef", [REGISTERED_KEY]: "k1" };

describe("decideRegistrationRetry", () => {
  const cases: { name: string; existing: Cluster; token: string; key: string; want: string }[] = [
    { name: "same token, same key: the retry gets its certificate, for the same Cluster", existing: cluster(mine), token: "abcdef", key: "k1", want: "sign uid-1" },
    { name: "same token, another key: someone else with the token; the name is taken", existing: cluster(mine), token: "abcdef", key: "k2", want: "refuse taken" },
    { name: "another token, same key: taken", existing: cluster(mine), token: "zzzzzz", key: "k1", want: "refuse taken" },
    { name: "a Cluster made by an admin (no registration annotations): taken", existing: cluster(undefined), token: "abcdef", key: "k1", want: "refuse taken" },
    { name: "registered before keys were recorded (token only): taken", existing: cluster({ [REGISTERED_WITH_TOKEN]: "abcdef" }), token: "abcdef", key: "k1", want: "refuse taken" },
    { name: "an empty key never matches", existing: cluster({ [REGISTERED_WITH_TOKEN]: "abcdef", [REGISTERED_KEY]: "" }), token: "abcdef", key: "", want: "refuse taken" },
    { name: "the same registration, being unjoined: refused", existing: cluster(mine, { deletionTimestamp: "2026-11-23T10:00:00Z" }), token: "abcdef", key: "k1", want: "refuse unjoining" },
    { name: "no uid (cannot bind a certificate): taken", existing: cluster(mine, { uid: "" }), token: "abcdef", key: "k1", want: "refuse taken" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = decideRegistrationRetry(c.existing, c.token, c.key);
      assert.equal(d.action === "sign" ? `sign ${d.uid}` : `refuse ${d.reason}`, c.want);
    });
  }
});
