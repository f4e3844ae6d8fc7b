import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Condition } from "../../shared/api/types.ts";
import { recordConditions } from "./dns-conditions.ts";

const T0 = "2026-11-23T10:00:00Z";
const T1 = "2026-11-23T11:00:00Z";
const ready = (status: "True" | "False", reason: string, at: string): Condition => ({ type: "Ready", status, reason, message: "", lastTransitionTime: at });

describe("recordConditions", () => {
  const cases: { name: string; input: Parameters<typeof recordConditions>[0]; want: Partial<Condition> }[] = [
    {
      name: "published, first time: Ready True, transition now",
      input: { endpointName: "web", generation: 2, now: T1 },
      want: { status: "True", reason: "RecordsPublished", lastTransitionTime: T1, observedGeneration: 2 },
    },
    {
      name: "still published: the transition time stays",
      input: { endpointName: "web", previous: [ready("True", "RecordsPublished", T0)], now: T1 },
      want: { status: "True", lastTransitionTime: T0 },
    },
    {
      name: "domainRef names no Domain: Ready False DomainNotFound naming the Domain",
      input: { problem: { reason: "DomainNotFound", domainRef: "missing" }, endpointName: "web", previous: [ready("True", "RecordsPublished", T0)], now: T1 },
      want: { status: "False", reason: "DomainNotFound", lastTransitionTime: T1 },
    },
    {
      name: "from one problem to another: the transition time stays (still False)",
      input: { problem: { reason: "DNSEndpointRejected", message: "spec.endpoints[0].dnsName: Invalid value" }, endpointName: "web", previous: [ready("False", "DomainNotFound", T0)], now: T1 },
      want: { status: "False", reason: "DNSEndpointRejected", lastTransitionTime: T0 },
    },
    {
      name: "the Domain appears: Ready True again",
      input: { endpointName: "web", previous: [ready("False", "DomainNotFound", T0)], now: T1 },
      want: { status: "True", reason: "RecordsPublished", lastTransitionTime: T1 },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = recordConditions(c.input);
      assert.equal(got.length, 1);
      const [cond] = got;
      assert.equal(cond?.type, "Ready");
      for (const [k, v] of Object.entries(c.want)) assert.deepEqual(cond?.[k as keyof Condition], v, k);
    });
  }

  it("the DomainNotFound message names the missing Domain", () => {
    const [cond] = recordConditions({ problem: { reason: "DomainNotFound", domainRef: "corp-zone" }, endpointName: "web", now: T0 });
    assert.match(cond?.message ?? "", /Domain "corp-zone" not found/);
  });

  it("a refused DNSEndpoint's message carries the apiserver's", () => {
    const [cond] = recordConditions({ problem: { reason: "DNSEndpointRejected", message: "spec.endpoints[0].dnsName: Invalid value: \"-x\"" }, endpointName: "web", now: T0 });
    assert.match(cond?.message ?? "", /refused: spec\.endpoints\[0\]\.dnsName: Invalid value/);
  });
});
