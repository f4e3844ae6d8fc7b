import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile, rename } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { RevocationFile, type RevocationState } from "./revocation-file.ts";

const FP = "AB".repeat(32);
const serials = (s: RevocationState) => ("list" in s ? [...s.list.serials] : s.broken);

describe("RevocationFile", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "flotilla-revocation-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("without a file nothing is revoked", async () => {
    const state = await new RevocationFile({ path: undefined, log: pino({ level: "silent" }) }).current();
    assert.deepEqual(serials(state), []);
  });

  it("reads the file again when it changes, looking at most once a second; fails closed on a bad line or a missing file", async () => {
    const path = join(dir, "list");
    await writeFile(path, "# none yet\n");
    let now = 0;
    const file = new RevocationFile({ path, log: pino({ level: "silent" }), now: () => now });
    assert.deepEqual(serials(await file.current()), []);

    await writeFile(path, "# one\n1A\n");
    now = 999;
    assert.deepEqual(serials(await file.current()), [], "not looked at again within a second");
    now = 1000;
    assert.deepEqual(serials(await file.current()), ["1A"]);

    await writeFile(path, "1A\nnot-an-entry\n");
    now = 2000;
    assert.match(serials(await file.current()) as string, /list line 2 "not-an-entry": not hex/);

    // A ConfigMap volume swaps a symlink; an editor may replace the file: a new inode is a change too.
    await writeFile(join(dir, "next"), "2B\n");
    await rename(join(dir, "next"), path);
    now = 3000;
    assert.deepEqual(serials(await file.current()), ["2B"]);

    await rm(path);
    now = 4000;
    assert.match(serials(await file.current()) as string, /^cannot read .*list: ENOENT/);
    await writeFile(path, `${FP}\n`);
    now = 5000;
    const back = await file.current();
    assert.ok("list" in back && back.list.fingerprints.has(FP));
  });
});
