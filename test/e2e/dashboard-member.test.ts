// The dashboard inside the members (issue 41), in chromium on a real fleet with the member API on:
// a Deployment's topology lists its pods in each member and an event about it, read as the
// signed-in user; a pod's page shows its log and a line the member writes after the page opened,
// without a reload; a viewer whom one member does not bind sees that member's refusal as a line; a
// member whose agent is gone says so, and one whose agent streams to another replica is read through
// it; bad names get a 400. Screenshots go to test-output/dashboard-member/.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { issueAdminCertificate } from "../../shared/pki.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { bindMemberApiGroups, MEMBER_API_BINDINGS } from "../env/member-api-rbac.ts";
import { appendPodLog } from "../env/pod-logs.ts";
import { axeViolations, launchBrowser, testOutputDir } from "./browser.ts";
import { apply, deploymentJson, eventually, getJson, kubectl, placementPolicyJson } from "./helpers.ts";

const NS = "dash-member";
const TOPOLOGY = `#/topology?apiVersion=apps%2Fv1&kind=Deployment&namespace=${NS}&name=web`;

describe("the dashboard inside the members, in chromium", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let browser: Browser;
  let admin: BrowserContext;
  let origin: string;
  let out: string;

  /** A browser context signed in with a client certificate of `user` in `role`. */
  const signedIn = async (user: string, role: "admin" | "viewer") => {
    const pair = await issueAdminCertificate({ certPem: await readFile(join(flotilla.certsDir, "ca.crt"), "utf8"), keyPem: await readFile(join(flotilla.certsDir, "ca.key"), "utf8") }, user, 3_600_000, role);
    const certPath = join(fleet.root, `${user}.crt`);
    const keyPath = join(fleet.root, `${user}.key`);
    await writeFile(certPath, pair.certPem, { mode: 0o600 });
    await writeFile(keyPath, pair.keyPem, { mode: 0o600 });
    return browser.newContext({ ignoreHTTPSErrors: true, clientCertificates: [{ origin, certPath, keyPath }] });
  };

  before(async () => {
    out = await testOutputDir("dashboard-member");
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet, { dashboard: true, memberApi: true });
    origin = `https://127.0.0.1:${flotilla.dashboardPort}`;
    // Each member's admin binds Flotilla's groups (docs/guides/member-api.md); member2 binds no viewers.
    // A role of its own for viewers: the members here run no ClusterRole aggregation, so `view` is empty.
    const [m1, m2] = fleet.members as [Cluster, Cluster];
    await kubectl(m1, ["create", "clusterrole", "fleet-reader", "--verb=get,list,watch", "--resource=pods,pods/log,events,deployments.apps"]);
    await Promise.all([bindMemberApiGroups(m1.kubeconfigPath, { viewers: "fleet-reader", admins: MEMBER_API_BINDINGS.admins }), bindMemberApiGroups(m2.kubeconfigPath, { admins: MEMBER_API_BINDINGS.admins })]);
    await kubectl(fleet.control, ["create", "namespace", NS]);
    await apply(fleet.control, deploymentJson("web", NS, 2));
    await apply(fleet.control, placementPolicyJson("web", NS, ["member1", "member2"]));
    for (const m of fleet.members) await eventually(`web Available in ${m.name}`, () => getJson<{ status?: { availableReplicas?: number } }>(m, ["deploy", "-n", NS, "web"]), (d) => d.status?.availableReplicas === 2);
    browser = await launchBrowser();
    admin = await signedIn("ada", "admin");
  });
  after(async () => {
    await browser?.close();
    await flotilla?.stop();
    await fleet?.stop();
  });

  /** axe-core finds no violation on the page; its screenshot goes to test-output/dashboard-member/<name>.png. */
  const checkAndShoot = async (page: Page, name: string, t: { diagnostic(m: string): void }) => {
    assert.deepEqual(await axeViolations(page), [], `axe-core finds no accessibility violation on ${name}`);
    await page.screenshot({ path: join(out, `${name}.png`), fullPage: true });
    t.diagnostic(`screenshot: ${join(out, `${name}.png`)}`);
    await page.close();
  };
  const member = (page: Page, m: string) => page.locator(`section[data-member="${m}"]`);

  it("the topology lists the Deployment's pods in each member and the events about it", async (t) => {
    const page = await admin.newPage();
    await page.goto(`${origin}/${TOPOLOGY}`);
    for (const m of fleet.members) {
      const direct = (await kubectl(m, ["get", "pods", "-n", NS, "-l", "app=web", "-o", "jsonpath={.items[*].metadata.name}"])).split(" ").sort();
      const rows = member(page, m.name).locator("tr[data-pod]");
      await rows.nth(1).waitFor({ timeout: 30_000 });
      assert.deepEqual((await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-pod")))).sort(), direct, `${m.name}'s pods, as its apiserver lists them`);
      assert.match((await rows.first().innerText()).replace(/\s+/g, " "), /^web-\S+ Running 1\/1 0 \S+ \d+(s|m) ago$/);
    }
    const event = member(page, "member1").getByRole("row", { name: /ScalingReplicaSet/ }).first();
    await event.waitFor({ timeout: 30_000 });
    assert.match((await event.innerText()).replace(/\s+/g, " "), /^\d+(s|m) ago Normal ScalingReplicaSet Deployment web Scaled up replica set web-\S+ from 0 to 2 \d+$/);
    await checkAndShoot(page, "topology-pods", t);
  });

  it("a pod's page shows its log and appends a line the member writes after it opened", async (t) => {
    const marker = `flotilla-${Date.now()}`;
    const m1 = fleet.members[0] as Cluster;
    await appendPodLog(m1, `before ${marker}`);
    const page = await admin.newPage();
    await page.goto(`${origin}/${TOPOLOGY}`);
    const first = member(page, "member1").locator("tr[data-pod] a").first();
    const pod = await first.innerText({ timeout: 30_000 });
    await first.click();
    await page.getByRole("heading", { name: `Pod ${NS}/${pod} in member1` }).waitFor({ timeout: 30_000 });
    const log = page.getByRole("log");
    await log.getByText(`before ${marker}`).waitFor({ timeout: 30_000 });
    await page.evaluate(() => ((globalThis as { notReloaded?: boolean }).notReloaded = true));
    const wrote = Date.now();
    await appendPodLog(m1, `after ${marker}`);
    await log.getByText(`after ${marker}`).waitFor({ timeout: 30_000 });
    t.diagnostic(`a line appended to the pod's log showed on the page ${Date.now() - wrote} ms later`);
    assert.equal(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded), true, "the page was not reloaded");
    assert.match(await page.getByRole("row", { name: /^c / }).innerText(), /nginx\s+Running\s+yes/);
    await checkAndShoot(page, "pod-log", t);
  });

  it("a viewer reads where the member binds viewers, and sees the other member's refusal as a line", async () => {
    const viewer = await signedIn("vera", "viewer");
    const page = await viewer.newPage();
    await page.goto(`${origin}/${TOPOLOGY}`);
    await member(page, "member1").locator("tr[data-pod]").nth(1).waitFor({ timeout: 30_000 });
    const refused = member(page, "member2").getByText(/^member2 refused: /).first();
    await refused.waitFor({ timeout: 30_000 });
    assert.match(await refused.innerText(), /forbidden: User "flotilla:viewer:vera" cannot get resource "deployments"/);
    assert.equal(await page.locator("form, input, textarea, select").count(), 0, "no form on a viewer's page");
    await viewer.close();
  });

  it("bad names are refused with a 400 that says which; a member whose agent is gone says so, and is read through the replica it comes back to", async () => {
    const bad = await admin.request.get(`${origin}/api/member/workload?cluster=member1&apiVersion=apps%2Fv1&kind=Deployment&namespace=${NS}&name=web%2F..`);
    assert.equal(bad.status(), 400);
    assert.match(((await bad.json()) as { error: string }).error, /^name: "web\/\.\." is not an object name/);
    assert.equal((await admin.request.get(`${origin}/api/member/log?cluster=member1&namespace=${NS}&pod=a%20b`)).status(), 400);

    await flotilla.stopAgent("member2");
    const page = await admin.newPage();
    await page.goto(`${origin}/${TOPOLOGY}`);
    await member(page, "member2").getByText(/^the agent of member2 is not connected to the control plane/).waitFor({ timeout: 30_000 });
    await member(page, "member1").locator("tr[data-pod]").nth(1).waitFor({ timeout: 30_000 });
    // Its agent back, on another replica: this replica's dashboard reads member2 through that one.
    const replica = await flotilla.startReplica();
    await flotilla.startAgent("member2", { hubPort: replica.hubPort });
    await member(page, "member2").locator("tr[data-pod]").nth(1).waitFor({ timeout: 60_000 });
    await page.close();
  });
});
