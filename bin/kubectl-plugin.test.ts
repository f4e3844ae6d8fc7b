// flotillactl is also kubectl's plugin `kubectl-flotilla` (as karmadactl is `kubectl karmada`):
// kubectl runs the file of that name it finds on PATH, and its messages then name it as run.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

function run(file: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { env: { ...process.env, FLOTILLA_INVOKED_AS: "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("kubectl flotilla", () => {
  it("is an npm bin of its own that runs flotillactl's launcher", async () => {
    const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { bin: Record<string, string> };
    assert.equal(pkg.bin["kubectl-flotilla"], pkg.bin.flotillactl);
  });

  const cases: { name: string; file: string; args: string[]; code: number; out: RegExp; stream: "stdout" | "stderr" }[] = [
    { name: "names itself kubectl flotilla in its errors", file: "kubectl-flotilla", args: ["get", "clusters", "--nope"], code: 2, out: /^kubectl flotilla: unknown flag --nope\n\nrun `kubectl flotilla help` for usage/, stream: "stderr" },
    { name: "and in its help", file: "kubectl-flotilla", args: ["help"], code: 0, out: /\nUse `kubectl flotilla <command> --help` for a command's flags\.\n$/, stream: "stdout" },
    { name: "and in a command's usage", file: "kubectl-flotilla", args: ["unjoin", "--help"], code: 0, out: /^Usage: kubectl flotilla unjoin <cluster>/, stream: "stdout" },
    { name: "stays flotillactl under its own name", file: "flotillactl", args: ["get", "clusters", "--nope"], code: 2, out: /^flotillactl: unknown flag --nope/, stream: "stderr" },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const dir = await mkdtemp(join(tmpdir(), "kubectl-plugin-"));
      try {
        await symlink(join(root, "bin", "flotillactl.js"), join(dir, c.file));
        const r = await run(join(dir, c.file), c.args);
        assert.equal(r.code, c.code, r.stderr);
        assert.match(r[c.stream], c.out);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
