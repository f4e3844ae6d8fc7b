import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { freePort, testPortRange, TEST_PORT_LOW } from "./free-port.ts";

const run = promisify(execFile);

describe("testPortRange", () => {
  it("from TEST_PORT_LOW to just below the ephemeral range", () => {
    assert.deepEqual(testPortRange("32768\t60999\n"), { low: TEST_PORT_LOW, high: 32767 });
  });
  it("too few ports below the ephemeral range: none (the kernel picks)", () => {
    assert.equal(testPortRange("11000 60999"), undefined);
    assert.equal(testPortRange("1024 65535"), undefined);
  });
  it("an unreadable range: none", () => {
    assert.equal(testPortRange(""), undefined);
    assert.equal(testPortRange("x y"), undefined);
  });
});

describe("freePort", () => {
  it("picks below the kernel's ephemeral range, where no outgoing connection takes a port a stopped listener let go", async () => {
    const range = testPortRange(await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8"));
    assert.ok(range !== undefined, "this machine has room below its ephemeral range");
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      assert.ok(port >= range.low && port <= range.high, `${port} in [${range.low}, ${range.high}]`);
    }
  });

  it("never hands out a port something listens on, nor the same port twice", async () => {
    const ports = new Set<number>();
    const servers = [];
    try {
      for (let i = 0; i < 50; i++) {
        const port = await freePort();
        assert.ok(!ports.has(port), `${port} handed out twice`);
        ports.add(port);
        // Each one listened on right away: each must have been free.
        const server = createServer();
        servers.push(server);
        await new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          server.listen(port, "127.0.0.1", resolve);
        });
      }
    } finally {
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    }
  });

  it("two processes sharing FLOTILLA_TEST_PORT_DIR never hand out the same port while both run; each one's reservations go when it exits", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flotilla-ports-"));
    // Each picks, then waits until the other has picked too: a port is free for others once its owner exited.
    const picked = await mkdtemp(join(tmpdir(), "flotilla-ports-picked-"));
    try {
      const script = `import { freePort } from ${JSON.stringify(new URL("./free-port.ts", import.meta.url).href)};
        import { readdirSync, writeFileSync } from "node:fs";
        const out = [];
        for (let i = 0; i < 300; i++) out.push(await freePort());
        writeFileSync(process.env.PICKED + "/" + process.pid, "");
        while (readdirSync(process.env.PICKED).length < 2) await new Promise((r) => setTimeout(r, 20));
        console.log(JSON.stringify(out));`;
      const pick = () => run(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, FLOTILLA_TEST_PORT_DIR: dir, PICKED: picked }, timeout: 60_000 });
      const [a, b] = await Promise.all([pick(), pick()]);
      const portsA = JSON.parse(a.stdout) as number[];
      const portsB = JSON.parse(b.stdout) as number[];
      assert.equal(new Set(portsA).size, 300);
      assert.equal(new Set(portsB).size, 300);
      const both = portsA.filter((p) => portsB.includes(p));
      assert.deepEqual(both, [], "no port handed to both");
      assert.deepEqual(await readdir(dir), [], "no reservation left behind");
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(picked, { recursive: true, force: true });
    }
  });

  it("a process that exits removes only its own reservations, never another live process's", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flotilla-ports-"));
    try {
      const mine = [await freePort({ FLOTILLA_TEST_PORT_DIR: dir }), await freePort({ FLOTILLA_TEST_PORT_DIR: dir })];
      const script = `import { freePort } from ${JSON.stringify(new URL("./free-port.ts", import.meta.url).href)};
        for (let i = 0; i < 5; i++) await freePort();`;
      await run(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, FLOTILLA_TEST_PORT_DIR: dir }, timeout: 60_000 });
      assert.deepEqual((await readdir(dir)).map(Number).sort(), [...mine].sort(), "the other process's five went with it; this one's two stay");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a reservation directory that is gone (the run ending): still a port below the ephemeral range, unreserved", async () => {
    const range = testPortRange(await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8"));
    assert.ok(range !== undefined);
    const port = await freePort({ FLOTILLA_TEST_PORT_DIR: join(tmpdir(), `flotilla-ports-gone-${process.pid}`, "x") });
    assert.ok(port >= range.low && port <= range.high, `${port} in [${range.low}, ${range.high}]`);
  });

  it("reserves each port it hands out as a file in the directory", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flotilla-ports-"));
    try {
      // This process's own picks are reserved as files: a second look at the directory finds each one.
      const picked = [await freePort({ FLOTILLA_TEST_PORT_DIR: dir }), await freePort({ FLOTILLA_TEST_PORT_DIR: dir })];
      assert.deepEqual((await readdir(dir)).map(Number).sort(), [...picked].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
