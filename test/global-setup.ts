// Runs once before any test file: builds (or finds) the cluster binaries, so parallel test files
// never race to build and the long first build shows its progress once.
import { ensureBinaries } from "./env/binaries.ts";

export async function globalSetup(): Promise<void> {
  await ensureBinaries();
}
