import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AddressPool, loadBalancerBlock } from "./address-pool.ts";

describe("loadBalancerBlock", () => {
  for (const [name, block] of [
    ["member1", 101],
    ["member2", 102],
    ["member12", 112],
    ["control", 100],
    ["teardown", 100],
  ] as const) {
    it(`gives ${name} 127.0.${block}.0/24`, () => assert.equal(loadBalancerBlock(name), block));
  }
});

describe("AddressPool", () => {
  it("gives each key its own address from the block, the same one while it holds it", () => {
    const pool = new AddressPool(101);
    assert.equal(pool.cidr, "127.0.101.0/24");
    assert.equal(pool.assign("Service/default/a"), "127.0.101.1");
    assert.equal(pool.assign("Service/default/b"), "127.0.101.2");
    assert.equal(pool.assign("Service/default/a"), "127.0.101.1");
    assert.equal(pool.addressOf("Service/default/b"), "127.0.101.2");
    assert.equal(pool.addressOf("Service/default/c"), undefined);
  });

  it("keeps an address the object already reports when it is a free one of this block", () => {
    const pool = new AddressPool(102);
    assert.equal(pool.assign("a", "127.0.102.77"), "127.0.102.77");
    assert.equal(pool.assign("b", "127.0.102.77"), "127.0.102.78", "taken: the next free one");
    assert.equal(pool.assign("c", "127.0.101.5"), "127.0.102.79", "another member's block is not ours");
    assert.equal(pool.assign("d", "127.0.102.255"), "127.0.102.80", "not a host address");
    assert.equal(pool.assign("e", "10.1.2.3"), "127.0.102.81");
  });

  it("moves a key to a different address on reassign and frees the old one last in line", () => {
    const pool = new AddressPool(101);
    pool.assign("a");
    pool.assign("b");
    assert.equal(pool.reassign("a"), "127.0.101.3");
    assert.equal(pool.addressOf("a"), "127.0.101.3");
    assert.equal(pool.assign("c"), "127.0.101.4", "the freed .1 waits until the block wraps");
    assert.equal(pool.reassign("b"), "127.0.101.5");
  });

  it("frees an address on release and hands it out again only after the rest of the block", () => {
    const pool = new AddressPool(101);
    pool.assign("a");
    pool.release("a");
    pool.release("never-held");
    assert.equal(pool.addressOf("a"), undefined);
    assert.equal(pool.assign("b"), "127.0.101.2");
  });

  it("wraps round the block and says so when all 254 addresses are taken", () => {
    const pool = new AddressPool(101);
    for (let i = 1; i <= 254; i++) assert.equal(pool.assign(`k${i}`), `127.0.101.${i}`);
    assert.throws(() => pool.assign("one-too-many"), /no free load-balancer address left in 127\.0\.101\.0\/24/);
    pool.release("k7");
    assert.equal(pool.assign("late"), "127.0.101.7");
    assert.throws(() => pool.reassign("late"), /no free load-balancer address/);
    assert.equal(pool.addressOf("late"), "127.0.101.7", "a failed reassign keeps the old address");
  });

  it("refuses a block that is not an octet", () => {
    assert.throws(() => new AddressPool(256), /not an octet/);
  });
});
