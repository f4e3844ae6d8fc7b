// Runs once before any test file: builds (or finds) the cluster binaries and the DNS binaries
// (ExternalDNS, CoreDNS), so parallel test files never race to build and the long first builds
// show their progress once.
import { ensureBinaries, ensureDnsBinaries } from "./env/binaries.ts";

export async function globalSetup(): Promise<void> {
  await ensureBinaries();
  await ensureDnsBinaries();
}
