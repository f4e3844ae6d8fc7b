import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { preserveOnRemoval } from "./preserve-decision.ts";

describe("preserveOnRemoval", () => {
  const cases: { name: string; said: boolean; reason: string; recorded: boolean; preserve: boolean }[] = [
    { name: "the hub says preserve", said: true, reason: "TemplateDeleted", recorded: false, preserve: true },
    { name: "the binding was gone when the hub sent the removal; the record says preserve", said: false, reason: "TemplateDeleted", recorded: true, preserve: true },
    { name: "no policy selects the template any more, binding gone; the record says preserve", said: false, reason: "NotPropagated", recorded: true, preserve: true },
    { name: "an older hub gives no reason; the record says preserve: kept (the protective side)", said: false, reason: "Unspecified", recorded: true, preserve: true },
    { name: "neither says preserve: deleted", said: false, reason: "TemplateDeleted", recorded: false, preserve: false },
    { name: "the placement moved the Work away, judged on the binding: the hub's false stands", said: false, reason: "PlacementChanged", recorded: true, preserve: false },
    { name: "the cluster is unjoined, judged on the binding: the hub's false stands", said: false, reason: "ClusterUnjoined", recorded: true, preserve: false },
    { name: "the hub says preserve on a placement change: preserved", said: true, reason: "PlacementChanged", recorded: false, preserve: true },
  ];
  for (const c of cases) it(c.name, () => assert.equal(preserveOnRemoval(c.said, c.reason, c.recorded), c.preserve));
});
