// Runs once before any test file: builds (or finds) the cluster binaries, the DNS binaries
// (ExternalDNS, CoreDNS) and the metrics binaries (metrics-server), so parallel test files never
// race to build, the long first builds show their progress once, and no test's time limit
// includes a build. It also builds the dashboard's page.
import { buildDashboard } from "../scripts/build-dashboard.ts";
import { ensureBinaries, ensureDnsBinaries, ensureMetricsBinaries } from "./env/binaries.ts";

export async function globalSetup(): Promise<void> {
  await ensureBinaries();
  await ensureDnsBinaries();
  await ensureMetricsBinaries();
  // The dashboard's page, which control planes started from source serve (the browser tests load it).
  await buildDashboard();
}
