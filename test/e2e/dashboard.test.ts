// The web dashboard in a real browser (issue 24): Debian's chromium through playwright-core, on a
// real fleet (control cluster, two members, control plane, agents, mTLS). The overview lists both
// members Ready; a template's topology shows both clusters healthy; stopping an agent turns its box
// NotReady without a reload; explain shows what flotillactl explain prints; a viewer signed in with
// a login link reaches no write; the pages pass axe-core's accessibility rules. Screenshots of the
// overview and the topology go to test-output/dashboard/.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext } from "playwright-core";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { axeViolations, launchBrowser, testOutputDir } from "./browser.ts";
import { apply, deploymentJson, eventually, getJson, kubectl, placementPolicyJson, runCommand } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const NS = "dash";
const FLOTILLA = (await ensureTestBundles()).flotilla;
const CTL = (await ensureTestBundles()).flotillactl;
const TOPOLOGY = `#/topology?apiVersion=apps%2Fv1&kind=Deployment&namespace=${NS}&name=web`;
const FAILURE_THRESHOLD_MS = 5_000;

describe("the web dashboard, in chromium", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let browser: Browser;
  let admin: BrowserContext;
  let origin: string;
  let out: string;
  const ctl = (args: string[], certDir?: string) =>
    runCommand(process.execPath, [CTL, ...args, ...(certDir === undefined ? [] : ["--cert", join(certDir, "admin.crt"), "--key", join(certDir, "admin.key")])], { env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root } });

  before(async () => {
    out = await testOutputDir("dashboard");
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet, { dashboard: true });
    origin = `https://127.0.0.1:${flotilla.dashboardPort}`;
    await kubectl(fleet.control, ["create", "namespace", NS]);
    await apply(fleet.control, deploymentJson("web", NS, 2));
    await apply(fleet.control, placementPolicyJson("web", NS, ["member1", "member2"]));
    for (const m of fleet.members) await eventually(`web Available in ${m.name}`, () => getJson<{ status?: { availableReplicas?: number } }>(m, ["deploy", "-n", NS, "web"]), (d) => d.status?.availableReplicas === 2);
    browser = await launchBrowser();
    // The admin signs in with the fleet's admin client certificate, as flotillactl does.
    admin = await browser.newContext({
      ignoreHTTPSErrors: true,
      clientCertificates: [{ origin, certPath: join(flotilla.certsDir, "admin.crt"), keyPath: join(flotilla.certsDir, "admin.key") }],
    });
  });
  after(async () => {
    await browser?.close();
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("the overview lists both members Ready, with their region, capacity, agent version and heartbeat", async (t) => {
    const page = await admin.newPage();
    await page.goto(`${origin}/#/overview`);
    for (const m of ["member1", "member2"]) {
      const row = page.locator(`tr[data-cluster="${m}"]`);
      await row.getByText("Ready", { exact: true }).waitFor({ timeout: 30_000 });
      assert.match((await row.innerText()).replace(/\s+/g, " "), /Ready .*\d+\/\d+ .*(s|m) ago/);
    }
    assert.match(await page.getByRole("table").first().locator("caption").innerText(), /2 of 2 Ready/);
    assert.match(await page.locator("header .who").innerText(), /admin \(admin, read-only\)/);
    assert.deepEqual(await axeViolations(page), [], "axe-core finds no accessibility violation on the overview");
    const shot = join(out, "overview.png");
    await page.screenshot({ path: shot, fullPage: true });
    t.diagnostic(`screenshot: ${shot}`);
    await page.close();
  });

  it("a template's topology shows both clusters healthy, and stopping an agent turns its box NotReady without a reload", async (t) => {
    const page = await admin.newPage();
    await page.goto(`${origin}/${TOPOLOGY}`);
    const box = (m: string) => page.locator(`li.box[data-cluster="${m}"]`);
    for (const m of ["member1", "member2"]) await page.locator(`li.box[data-cluster="${m}"][data-state="Healthy"]`).waitFor({ timeout: 60_000 });
    const text = await box("member1").innerText();
    assert.match(text, /Applied\s+yes/);
    assert.match(text, /Replicas\s+2/);
    assert.match(await page.getByRole("list", { name: "propagation chain" }).innerText(), new RegExp(`PropagationPolicy ${NS}/web[\\s\\S]*Binding\\s+${NS}/web-deployment`));
    assert.deepEqual(await axeViolations(page), [], "axe-core finds no accessibility violation on the topology");
    const shot = join(out, "topology.png");
    await page.screenshot({ path: shot, fullPage: true });
    t.diagnostic(`screenshot: ${shot}`);

    // The same page, never reloaded: a marker set now must still be there when the box changes.
    await page.evaluate(() => ((globalThis as { notReloaded?: boolean }).notReloaded = true));
    const stoppedAt = Date.now();
    await flotilla.stopAgent("member2");
    await page.locator('li.box[data-cluster="member2"][data-state="NotReady"]').waitFor({ timeout: FAILURE_THRESHOLD_MS + 30_000 });
    const took = Date.now() - stoppedAt;
    t.diagnostic(`member2's box turned NotReady ${took} ms after its agent stopped (failure threshold ${FAILURE_THRESHOLD_MS} ms)`);
    assert.equal(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded), true, "the page was not reloaded");
    assert.equal(await box("member1").getAttribute("data-state"), "Healthy");
    const cluster = await getJson<{ status?: { conditions?: { type: string; status: string; lastTransitionTime: string }[] } }>(fleet.control, ["cluster", "member2"]);
    assert.equal(cluster?.status?.conditions?.find((c) => c.type === "Ready")?.status, "False", "the box follows the Cluster's Ready condition");
    await flotilla.startAgent("member2");
    await page.locator('li.box[data-cluster="member2"][data-state="Healthy"]').waitFor({ timeout: 60_000 });
    await page.close();
  });

  it("templates, clusters and features pages show what runs where; the links lead to the topology and the explanation", async () => {
    const page = await admin.newPage();
    await page.goto(`${origin}/#/overview`);
    await page.getByRole("navigation", { name: "main" }).getByRole("link", { name: "Templates" }).click();
    const row = page.getByRole("row", { name: new RegExp(`Deployment ${NS}/web`) });
    await row.getByText("Healthy").first().waitFor({ timeout: 30_000 });
    assert.match((await row.innerText()).replace(/\s+/g, " "), new RegExp(`Deployment ${NS}/web Healthy PropagationPolicy ${NS}/web member1 Healthy member2 Healthy`));
    await row.getByRole("link", { name: `topology of Deployment ${NS}/web` }).click();
    await page.getByRole("heading", { name: `Topology of Deployment ${NS}/web` }).waitFor({ timeout: 30_000 });
    await page.getByRole("link", { name: `Explain where Deployment ${NS}/web runs, and why` }).click();
    assert.match(await page.getByLabel("explanation").innerText({ timeout: 30_000 }), /member1/);

    await page.getByRole("navigation", { name: "main" }).getByRole("link", { name: "Clusters" }).click();
    for (const m of ["member1", "member2"]) {
      const section = page.getByRole("region", { name: new RegExp(`^${m}`) });
      await section.getByRole("row", { name: new RegExp(`Deployment ${NS}/web`) }).waitFor({ timeout: 30_000 });
      assert.match((await section.getByRole("row", { name: new RegExp(`Deployment ${NS}/web`) }).innerText()).replace(/\s+/g, " "), /Healthy 2/);
    }
    await page.getByRole("navigation", { name: "main" }).getByRole("link", { name: "Rollouts, DNS, deletions" }).click();
    await page.getByText("No progressive rollout, DNS record or held deletion in the fleet.").waitFor({ timeout: 30_000 });
    assert.deepEqual(await axeViolations(page), [], "axe-core finds no accessibility violation on the features page");
    await page.close();
  });

  it("explain shows the text flotillactl explain prints", async () => {
    const cli = await ctl(["explain", "deployment/web", "-n", NS]);
    assert.equal(cli.code, 0, cli.stderr);
    const page = await admin.newPage();
    await page.goto(`${origin}/#/explain?apiVersion=apps%2Fv1&kind=Deployment&namespace=${NS}&name=web`);
    const shown = await page.getByLabel("explanation").innerText({ timeout: 30_000 });
    // Ages ("12s ago") move between the two reads; everything else is the same text.
    const timeless = (s: string) => s.replace(/\b\d+(ms|s|m|h|d)( ago)?\b/g, "<age>").replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>").trim();
    assert.equal(timeless(shown), timeless(cli.stdout));
    assert.match(shown, /member1/);
    assert.match(shown, /member2/);
    await page.close();
  });

  it("a viewer signs in with a one-time link and reaches no write; without a session nothing is read", async () => {
    const dir = join(fleet.root, "viewer-vera");
    const issued = await runCommand(process.execPath, [FLOTILLA, "certs", "admin", "--dir", flotilla.certsDir, "--user", "vera", "--role", "viewer", "--out", dir], { env: { ...process.env, KUBECONFIG: "" } });
    assert.equal(issued.code, 0, issued.stderr);
    const link = await ctl(["dashboard"], dir);
    assert.equal(link.code, 0, link.stderr);
    const url = link.stdout.split("\n")[0] ?? "";
    assert.match(url, new RegExp(`^${origin}/login\\?token=[\\w-]+\\.[\\w-]+$`));

    const viewer = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await viewer.newPage();
    await page.goto(url);
    await page.locator("header .who").getByText("vera (viewer, read-only)").waitFor({ timeout: 30_000 });
    const cookies = await viewer.cookies(origin);
    assert.deepEqual(cookies.map((c) => [c.name, c.httpOnly, c.secure, c.sameSite]), [["flotilla_session", true, true, "Strict"]]);
    await page.goto(`${origin}/${TOPOLOGY}`);
    await page.locator('li.box[data-cluster="member1"]').waitFor({ timeout: 30_000 });
    assert.equal(await page.locator("form, input, textarea, select").count(), 0, "no form on a viewer's page");

    // Every method but GET and HEAD is refused on every path, for the viewer's session.
    const refused = await page.evaluate(async () => {
      const out: string[] = [];
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        for (const path of ["/", "/login", "/api/view?view=overview", "/api/events?view=overview", "/api/explain", "/api/whoami"]) {
          const res = await fetch(path, { method, body: method === "DELETE" ? undefined : "{}", credentials: "same-origin" });
          out.push(`${method} ${path} ${res.status}`);
        }
      }
      return out;
    });
    for (const line of refused) assert.match(line, / 405$/, line);

    // The link worked once.
    const again = await browser.newContext({ ignoreHTTPSErrors: true });
    const second = await again.request.get(url, { maxRedirects: 0 });
    assert.equal(second.status(), 401);
    assert.match(await second.text(), /used already/);
    // No certificate, no session: the page asks to sign in, and the API answers 401.
    const anonymous = await again.newPage();
    await anonymous.goto(`${origin}/`);
    await anonymous.getByRole("heading", { name: "Sign in to Flotilla" }).waitFor({ timeout: 30_000 });
    assert.equal((await again.request.get(`${origin}/api/view?view=overview`)).status(), 401);
    await viewer.close();
    await again.close();
  });
});
