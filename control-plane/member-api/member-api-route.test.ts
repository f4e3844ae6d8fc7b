import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { memberRoute } from "./member-api-route.ts";

describe("memberRoute", () => {
  const cases: { url: string; want: { cluster: string; path: string } | number }[] = [
    { url: "/clusters/member1/api/v1/pods", want: { cluster: "member1", path: "/api/v1/pods" } },
    { url: "/clusters/member1", want: { cluster: "member1", path: "/" } },
    { url: "/clusters/member1/", want: { cluster: "member1", path: "/" } },
    { url: "/clusters/member1?timeout=32s", want: { cluster: "member1", path: "/?timeout=32s" } },
    { url: "/clusters/eu.west-1/apis/apps/v1/deployments?watch=1&resourceVersion=10", want: { cluster: "eu.west-1", path: "/apis/apps/v1/deployments?watch=1&resourceVersion=10" } },
    { url: "/api/v1/pods", want: 404 },
    { url: "/clusters/", want: 400 },
    { url: "/clusters/Member1/api", want: 400 },
    { url: "/clusters/../api", want: 400 },
    { url: "/clusters/member1/../member2/api", want: 400 },
    { url: "/clusters/member1/api/%2e%2e/x", want: 400 },
    { url: "/clusters/member1//api", want: 400 },
    { url: `/clusters/${"a".repeat(300)}/api`, want: 400 },
  ];
  for (const c of cases) {
    it(c.url.slice(0, 60), () => {
      const got = memberRoute(c.url);
      if (typeof c.want === "number") assert.equal("status" in got ? got.status : 0, c.want);
      else assert.deepEqual(got, c.want);
    });
  }
});
