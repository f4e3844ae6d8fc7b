import assert from "node:assert/strict";
import { it } from "node:test";
import { parseViewKey, viewKey } from "./view-key.ts";

it("one key per view, whatever the query's order or extra fields; bad views are errors", () => {
  const a = viewKey(new URLSearchParams("name=web&view=topology&kind=Deployment&apiVersion=apps/v1&namespace=default&junk=1"));
  const b = viewKey(new URLSearchParams("view=topology&apiVersion=apps%2Fv1&kind=Deployment&namespace=default&name=web"));
  assert.equal(a, b);
  assert.deepEqual(parseViewKey(a), { name: "topology", ref: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web" } });
  assert.equal(viewKey(new URLSearchParams("view=overview&x=1")), "overview");
  assert.deepEqual(parseViewKey("overview"), { name: "overview" });
  assert.match((parseViewKey("secrets") as { error: string }).error, /no such view "secrets"/);
  assert.match((parseViewKey(viewKey(new URLSearchParams("view=topology&kind=Deployment"))) as { error: string }).error, /apiVersion, kind and name/);
});
