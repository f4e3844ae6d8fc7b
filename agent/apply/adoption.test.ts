import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { decideApply } from "./apply-decision.ts";
import { adoptsFromPrevious } from "./adoption.ts";

const OURS = "0123456789abcdef/member1";
const deployment = (labels?: Record<string, string>, annotations?: Record<string, string>): KubeObject => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop", labels, annotations } });
const karmadas = { "karmada.io/managed": "true", "work.karmada.io/permanent-id": "6f1c", app: "web" };
const marked = deployment({ app: "web" }, { "flotilla.dev/adopt": "karmada" });
const unmarked = deployment({ app: "web" });
const kubefeds = { "kubefed.io/managed": "true", app: "web" };
const kubefedMarked = deployment({ app: "web" }, { "flotilla.dev/adopt": "kubefed" });

describe("adopting what Karmada's agent or KubeFed applied", () => {
  const cases: { name: string; manifest: KubeObject; live: KubeObject; cr: string; want: string }[] = [
    { name: "a marked template takes over Karmada's object under Abort", manifest: marked, live: deployment(karmadas), cr: "Abort", want: "apply" },
    { name: "an unmarked template does not: AlreadyExists, as before", manifest: unmarked, live: deployment(karmadas), cr: "Abort", want: "AlreadyExists" },
    { name: "the mark with another value does not", manifest: deployment({}, { "flotilla.dev/adopt": "kubefed" }), live: deployment(karmadas), cr: "Abort", want: "AlreadyExists" },
    { name: "an object without Karmada's managed label (someone else's) is not adopted", manifest: marked, live: deployment({ app: "web" }), cr: "Abort", want: "AlreadyExists" },
    { name: "Karmada's label set to anything but true is not Karmada's", manifest: marked, live: deployment({ "karmada.io/managed": "false" }), cr: "Abort", want: "AlreadyExists" },
    { name: "Karmada's label with only the permanent-id left is not enough", manifest: marked, live: deployment({ "work.karmada.io/permanent-id": "6f1c" }), cr: "Abort", want: "AlreadyExists" },
    { name: "an object another Flotilla Work holds is never adopted", manifest: marked, live: deployment({ ...karmadas, "flotilla.dev/work": "w2" }), cr: "Abort", want: "AlreadyExists" },
    { name: "an object another fleet owns is never adopted", manifest: marked, live: deployment(karmadas, { "flotilla.dev/owner": "fedcba9876543210/member1" }), cr: "Abort", want: "AlreadyExists" },
    { name: "managed=false still wins", manifest: marked, live: deployment({ ...karmadas, "flotilla.dev/managed": "false" }), cr: "Abort", want: "ManagedLabelFalse" },
    { name: "Overwrite takes it over with or without the mark", manifest: unmarked, live: deployment(karmadas), cr: "Overwrite", want: "apply" },
    { name: "once adopted it is ours (the Work's label), mark or not", manifest: unmarked, live: deployment({ ...karmadas, "flotilla.dev/work": "w1" }), cr: "Abort", want: "apply" },
    { name: "a template marked for KubeFed takes over KubeFed's object under Abort", manifest: kubefedMarked, live: deployment(kubefeds), cr: "Abort", want: "apply" },
    { name: "a template marked for KubeFed does not take Karmada's", manifest: kubefedMarked, live: deployment(karmadas), cr: "Abort", want: "AlreadyExists" },
    { name: "a template marked for Karmada does not take KubeFed's", manifest: marked, live: deployment(kubefeds), cr: "Abort", want: "AlreadyExists" },
    { name: "KubeFed's label set to anything but true is not KubeFed's", manifest: kubefedMarked, live: deployment({ "kubefed.io/managed": "false" }), cr: "Abort", want: "AlreadyExists" },
    { name: "KubeFed's object another fleet owns is never adopted", manifest: kubefedMarked, live: deployment(kubefeds, { "flotilla.dev/owner": "fedcba9876543210/member1" }), cr: "Abort", want: "AlreadyExists" },
    { name: "KubeFed's object another Work holds is never adopted", manifest: kubefedMarked, live: deployment({ ...kubefeds, "flotilla.dev/work": "w2" }), cr: "Abort", want: "AlreadyExists" },
    { name: "an unknown system's mark adopts nothing", manifest: deployment({}, { "flotilla.dev/adopt": "fleet" }), live: deployment({ ...kubefeds, ...karmadas }), cr: "Abort", want: "AlreadyExists" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = decideApply(c.live, "w1", c.cr, OURS, c.manifest);
      assert.equal(d.action === "apply" ? "apply" : d.reason, c.want);
    });
  }

  it("adoptsFromPrevious asks for both the mark and Karmada's label", () => {
    assert.equal(adoptsFromPrevious(marked, deployment(karmadas)), true);
    assert.equal(adoptsFromPrevious(unmarked, deployment(karmadas)), false);
    assert.equal(adoptsFromPrevious(marked, deployment()), false);
  });
});
