// The binary cache: warm runs do nothing, and missing prerequisites give clear errors.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, stat, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, describe, it } from "node:test";
import {
  BINARY_NAMES,
  DNS_BINARY_NAMES,
  ensureBinaries,
  ensureDnsBinaries,
  ensureMetricsBinaries,
  METRICS_BINARY_NAMES,
} from "./binaries.ts";

const script = fileURLToPath(new URL("./build-binaries.sh", import.meta.url));
const exec = promisify(execFile);

async function runScript(env: NodeJS.ProcessEnv, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec("bash", [script, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const temp: string[] = [];
after(() => Promise.all(temp.map((d) => rm(d, { recursive: true, force: true }))));

describe("build-binaries.sh", () => {
  it("does no work when the cache is warm and prints the binary directory", async () => {
    const dir = await ensureBinaries();
    const before = await stat(join(dir, ".complete"));
    const r = await runScript({});
    assert.equal(r.code, 0);
    assert.equal(r.stdout.trim(), dir);
    assert.equal(r.stderr, "", "a warm run says nothing and builds nothing");
    assert.equal((await stat(join(dir, ".complete"))).mtimeMs, before.mtimeMs);
    for (const name of BINARY_NAMES) assert.ok((await stat(join(dir, name))).mode & 0o100, `${name} is executable`);
  });

  it("uses FLOTILLA_BIN_DIR instead of building when it holds every binary", async () => {
    const dir = await ensureBinaries();
    const r = await runScript({ FLOTILLA_BIN_DIR: dir, FLOTILLA_CACHE_DIR: "/nonexistent" });
    assert.equal(r.code, 0);
    assert.equal(r.stdout.trim(), dir);
  });

  it("refuses an incomplete FLOTILLA_BIN_DIR and names what is missing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flotilla-bin-"));
    temp.push(dir);
    await writeFile(join(dir, "kubectl"), "#!/bin/sh\n");
    await chmod(join(dir, "kubectl"), 0o755);
    const r = await runScript({ FLOTILLA_BIN_DIR: dir });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /lacks: kube-apiserver kube-controller-manager kube-scheduler kwok helm etcd kwok-stages\//);
    assert.match(r.stderr, /FLOTILLA_BIN_DIR is set but incomplete/);
  });

  it("says what to install when Go is missing", async () => {
    const cache = await mkdtemp(join(tmpdir(), "flotilla-cache-"));
    temp.push(cache);
    const r = await runScript({ PATH: "/usr/bin:/bin", FLOTILLA_CACHE_DIR: cache });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Go is not installed\. Building the test binaries needs Go >= 1\.26/);
    assert.match(r.stderr, /FLOTILLA_BIN_DIR/);
  });

  it("keeps the DNS binaries in their own cache entry: a warm run is silent and the cluster entry is untouched", async () => {
    const [clusterDir, dnsDir] = await Promise.all([ensureBinaries(), ensureDnsBinaries()]);
    assert.notEqual(dnsDir, clusterDir);
    const r = await runScript({}, ["dns"]);
    assert.equal(r.code, 0);
    assert.equal(r.stdout.trim(), dnsDir);
    assert.equal(r.stderr, "", "a warm run says nothing and builds nothing");
    for (const name of DNS_BINARY_NAMES) assert.ok((await stat(join(dnsDir, name))).mode & 0o100, `${name} is executable`);
    assert.equal((await runScript({}, ["cluster"])).stdout.trim(), clusterDir, "naming the cluster group is the default");
  });

  it("refuses an incomplete FLOTILLA_DNS_BIN_DIR and an unknown group", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flotilla-dns-bin-"));
    temp.push(dir);
    await writeFile(join(dir, "coredns"), "#!/bin/sh\n");
    await chmod(join(dir, "coredns"), 0o755);
    const r = await runScript({ FLOTILLA_DNS_BIN_DIR: dir }, ["dns"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /lacks: external-dns\n/);
    assert.match(r.stderr, /FLOTILLA_DNS_BIN_DIR is set but incomplete/);
    const bad = await runScript({}, ["dnss"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown binary group "?dnss"? \(cluster, dns, metrics or karmada\)/);
  });

  it("keeps metrics-server and kwok's metrics files in their own cache entry: a warm run is silent", async () => {
    const [clusterDir, dnsDir, metricsDir] = await Promise.all([ensureBinaries(), ensureDnsBinaries(), ensureMetricsBinaries()]);
    assert.equal(new Set([clusterDir, dnsDir, metricsDir]).size, 3);
    const r = await runScript({}, ["metrics"]);
    assert.equal(r.code, 0);
    assert.equal(r.stdout.trim(), metricsDir);
    assert.equal(r.stderr, "", "a warm run says nothing and builds nothing");
    for (const name of METRICS_BINARY_NAMES) assert.ok((await stat(join(metricsDir, name))).mode & 0o100, `${name} is executable`);
    for (const file of ["metrics-resource.yaml", "kwok.x-k8s.io_resourceusages.yaml", "kwok.x-k8s.io_clusterresourceusages.yaml"]) {
      assert.ok((await stat(join(metricsDir, "kwok-metrics", file))).isFile(), `kwok-metrics/${file}`);
    }
    const version = await exec(join(metricsDir, "metrics-server"), ["--version"]);
    assert.match(version.stdout, /v0\.9\.0/);
  });

  it("refuses an incomplete FLOTILLA_METRICS_BIN_DIR and names what is missing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flotilla-metrics-bin-"));
    temp.push(dir);
    const r = await runScript({ FLOTILLA_METRICS_BIN_DIR: dir }, ["metrics"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /lacks: metrics-server kwok-metrics\//);
    assert.match(r.stderr, /FLOTILLA_METRICS_BIN_DIR is set but incomplete/);
  });

  it("refuses an incomplete FLOTILLA_KARMADA_BIN_DIR and names what is missing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flotilla-karmada-bin-"));
    temp.push(dir);
    await writeFile(join(dir, "karmada-agent"), "#!/bin/sh\n");
    await chmod(join(dir, "karmada-agent"), 0o755);
    const r = await runScript({ FLOTILLA_KARMADA_BIN_DIR: dir }, ["karmada"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /lacks: karmada-aggregated-apiserver karmada-controller-manager karmada-scheduler karmada-webhook karmada-crds\//);
    assert.match(r.stderr, /FLOTILLA_KARMADA_BIN_DIR is set but incomplete/);
  });
});
