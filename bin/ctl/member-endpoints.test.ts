import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type MemberApiList, memberEndpoint, NO_MEMBER_API, selectClusters } from "./member-endpoints.ts";
import { memberKubeconfig } from "./member-kubeconfig.ts";

const list: MemberApiList = { memberApiUrl: "https://127.0.0.1:9443", clusters: [{ name: "member1" }, { name: "member2" }] };

describe("a member's endpoint through the control plane", () => {
  const cases: { name: string; list: MemberApiList; cluster: string; want: { server: string } | { error: string } }[] = [
    { name: "is <member_api_url>/clusters/<name>", list, cluster: "member1", want: { server: "https://127.0.0.1:9443/clusters/member1" } },
    { name: "drops the URL's trailing slash", list: { ...list, memberApiUrl: "https://cp.example.com:9443/" }, cluster: "member2", want: { server: "https://cp.example.com:9443/clusters/member2" } },
    { name: "is none when the control plane serves no member API", list: { ...list, memberApiUrl: "" }, cluster: "member1", want: { error: NO_MEMBER_API } },
    { name: "is none for a cluster not registered", list, cluster: "nope", want: { error: 'cluster "nope" is not registered' } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(memberEndpoint(c.list, c.cluster), c.want));
});

describe("--clusters", () => {
  const cases: [string, { clusters: string[] } | { error: string }][] = [
    ["", { clusters: ["member1", "member2"] }],
    ["all", { clusters: ["member1", "member2"] }],
    ["member2", { clusters: ["member2"] }],
    ["member2,member1,member2", { clusters: ["member2", "member1"] }],
    [" member1 , ", { clusters: ["member1"] }],
    ["member1,nope,gone", { error: "not registered: nope, gone (the clusters are member1, member2)" }],
  ];
  for (const [value, want] of cases) it(`${JSON.stringify(value)} selects ${JSON.stringify(want)}`, () => assert.deepEqual(selectClusters(list, value), want));
  it("selects nothing without a member API, or without members", () => {
    assert.deepEqual(selectClusters({ ...list, memberApiUrl: "" }, "all"), { error: NO_MEMBER_API });
    assert.deepEqual(selectClusters({ ...list, clusters: [] }, "all"), { error: "no member cluster is registered" });
  });
});

describe("the member kubeconfig", () => {
  const input = { cluster: "member1", server: "https://127.0.0.1:9443/clusters/member1", caPem: "CA PEM\n", certPem: "CERT PEM\n", keyPem: "KEY PEM\n" };
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  it("names cluster, user and context flotilla-<cluster>, the context current, with the CA, the name to verify and the caller's certificate", () => {
    assert.deepEqual(memberKubeconfig({ ...input, serverName: "localhost" }), {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "flotilla-member1", cluster: { server: input.server, "certificate-authority-data": b64("CA PEM\n"), "tls-server-name": "localhost" } }],
      users: [{ name: "flotilla-member1", user: { "client-certificate-data": b64("CERT PEM\n"), "client-key-data": b64("KEY PEM\n") } }],
      contexts: [{ name: "flotilla-member1", context: { cluster: "flotilla-member1", user: "flotilla-member1" } }],
      "current-context": "flotilla-member1",
    });
  });
  it("leaves the name to verify to the server's host when none is given", () => {
    const config = memberKubeconfig({ ...input, serverName: undefined }) as { clusters: { cluster: Record<string, string> }[] };
    assert.equal(config.clusters[0]?.cluster["tls-server-name"], undefined);
  });
});
