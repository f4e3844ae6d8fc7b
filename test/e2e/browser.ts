// Debian's chromium driven by playwright-core (no browser download): the dashboard's browser
// tests. CHROMIUM overrides the executable (default /usr/bin/chromium, which `npm test` installs
// with apt through scripts/ensure-tools.sh). Playwright gives the browser a fresh profile in a
// temporary directory and removes it when the browser closes.
import { mkdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

const AXE = fileURLToPath(new URL("../../node_modules/axe-core/axe.min.js", import.meta.url));

/** Where browser tests write what a person looks at afterwards (screenshots): test-output/<name>/ in the repository. */
export async function testOutputDir(name: string): Promise<string> {
  const dir = fileURLToPath(new URL(`../../test-output/${name}/`, import.meta.url));
  await mkdir(dir, { recursive: true });
  return dir;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // Headless, with nothing that reaches beyond 127.0.0.1 (updates, sync, QUIC probes).
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
    headless: true,
    timeout: 60_000,
  });
}

/** axe-core's accessibility violations on the page as it stands, as "rule (count)". */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern.
  await page.evaluate(await readFile(AXE, "utf8"));
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }).axe;
    return (await axe.run()).violations.map((v) => `${v.id} (${v.nodes.length})`);
  });
}
