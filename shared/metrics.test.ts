import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { counter, counterOf, gaugeOf, histogram, registry } from "./metrics.ts";

describe("metrics registry", () => {
  it("renders scrape-time gauges and counters under their names and labels, with Node's defaults", async () => {
    let leading = true;
    gaugeOf("test_leader", "test", () => (leading ? 1 : 0));
    gaugeOf("test_works", "test", () => [[{ cluster: "member1" }, 3], [{ cluster: "member2" }, 0]] as const, ["cluster"]);
    counterOf("test_writes_total", "test", () => 7);
    counter("test_errors_total", "test", ["name"]).inc({ name: "status" });
    leading = false;
    const text = await registry.metrics();
    for (const line of ["test_leader 0", 'test_works{cluster="member1"} 3', 'test_works{cluster="member2"} 0', "test_writes_total 7", 'test_errors_total{name="status"} 1']) {
      assert.ok(text.split("\n").includes(line), `missing ${line}`);
    }
    assert.match(text, /^process_cpu_user_seconds_total /m);
    assert.match(registry.contentType, /^text\/plain/);
  });

  it("a gauge reads again at each scrape and drops label sets that are gone", async () => {
    let clusters = ["a", "b"];
    gaugeOf("test_clusters", "test", () => clusters.map((c) => [{ cluster: c }, 1] as const), ["cluster"]);
    clusters = ["b"];
    const text = await registry.metrics();
    assert.ok(!text.includes('test_clusters{cluster="a"}'));
    assert.ok(text.includes('test_clusters{cluster="b"} 1'));
  });

  it("declaring a scrape-time metric again replaces the first one", async () => {
    gaugeOf("test_replaced", "test", () => 1);
    gaugeOf("test_replaced", "test", () => 2);
    assert.ok((await registry.metrics()).split("\n").includes("test_replaced 2"));
  });

  it("a histogram observes into its buckets, sum and count", async () => {
    const h = histogram("test_duration_seconds", "test", ["name"]);
    h.observe({ name: "work" }, 0.2);
    h.observe({ name: "work" }, 3);
    const lines = (await registry.metrics()).split("\n");
    assert.ok(lines.includes('test_duration_seconds_bucket{le="0.25",name="work"} 1'), lines.filter((l) => l.startsWith("test_duration")).join("\n"));
    assert.ok(lines.includes('test_duration_seconds_bucket{le="+Inf",name="work"} 2'));
    assert.ok(lines.includes('test_duration_seconds_sum{name="work"} 3.2'));
    assert.ok(lines.includes('test_duration_seconds_count{name="work"} 2'));
    assert.equal(histogram("test_duration_seconds", "test", ["name"]), h, "declared once per name");
  });
});
