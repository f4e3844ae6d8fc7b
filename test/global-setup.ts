// Runs once before any test file (test/runner/run.ts calls it; so does `node --test
// --test-global-setup=test/global-setup.ts`): builds (or finds) every group of test binaries, so
// parallel test files never race to build, the long first builds show their progress once, and no
// test file's time (or its 150 s budget) includes a build. It also builds the dashboard's page and
// the bundles that tests run Flotilla's processes from.
// Each step's time is printed: on a cold machine they are most of the run. The binary groups build
// at once (their progress lines name their binaries). It also makes the etcd seed clusters start from.
import { buildDashboard } from "../scripts/build-dashboard.ts";
import { allSettledOrThrow } from "./env/all-settled.ts";
import { ensureBinaries, ensureDnsBinaries, ensureKarmadaBinaries, ensureMetricsBinaries } from "./env/binaries.ts";
import { etcdSeed, seedWanted } from "./env/etcd-seed.ts";
import { ensureTestBundles } from "./env/test-bundles.ts";

async function timed(what: string, step: () => Promise<unknown>): Promise<void> {
  const start = Date.now();
  await step();
  console.log(`global setup: ${what} ready in ${((Date.now() - start) / 1000).toFixed(1)} s`);
}

export async function globalSetup(): Promise<void> {
  // The four groups build at once. One after another, a cold machine left cores idle while one
  // group downloaded modules or linked (run 3375144: 1,888.9 s of builds); at once, ExternalDNS with
  // CoreDNS and metrics-server from empty caches kept both cores busy and took 711 s, against 770 s
  // one after the other with the cluster group's modules already compiled (docs/development/testing.md).
  // Every build settles before a failure is thrown, so none is left running.
  await allSettledOrThrow([
    // Then the etcd seed every cluster starts from (env/etcd-seed.ts), made once before the files.
    timed("cluster binaries (Kubernetes, kwok, helm, etcd) and the etcd seed", async () => (seedWanted() ? etcdSeed(await ensureBinaries()) : ensureBinaries())),
    timed("DNS binaries (ExternalDNS, CoreDNS)", ensureDnsBinaries),
    timed("metrics binaries (metrics-server)", ensureMetricsBinaries),
    // Only test/env/karmada.test.ts, migrate-karmada and the Karmada benchmark run Karmada, but its
    // cold build (minutes) must not count against that file's budget. It builds at nice 19, so the
    // groups every fleet needs come first.
    timed("Karmada binaries", ensureKarmadaBinaries),
    // The dashboard's page, which control planes started from source serve (the browser tests load it).
    timed("dashboard page", buildDashboard),
  ]);
  // The control planes, agents and flotillactl that tests start run from these (env/test-bundles.ts).
  await timed("Flotilla's test bundles", ensureTestBundles);
}
