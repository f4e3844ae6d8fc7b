// `npm run chaos`: 2 control-plane replicas and N members under seeded churn and faults, then a
// check that nothing was lost (issue 11). Prints one summary line; exits 1 on any loss.
import { cp, writeFile } from "node:fs/promises";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { checkoutPreviousVersion } from "../env/previous-version.ts";
import { sizedCrd } from "../env/sized-crd.ts";
import { KubeRest } from "../../shared/kube-rest.ts";
import { applyOperation, type ChurnModel, type ChurnOperation, clusterLabelPatch, groupOf, groupPolicyManifests, GROUPS, initialModel, NAMESPACE, nextOperation, replicasUpdate, templateManifest, wanted, WIDGET_GROUP } from "./churn-model.ts";
import { type ControlAccess, labelCluster, Lock, type Manifest, persist } from "./control-writes.ts";
import { checkFleet, type MemberCheck } from "./convergence.ts";
import { type IntentSnapshot, judgeDeletions, type NamespaceDeletion, type ObservedDeletion, userCopiesGone } from "./deletion-judge.ts";
import { planFaults, planHpas, planUserWrites } from "./fault-plan.ts";
import { type FieldReset, fieldResets, heldUntil, judgedChanges } from "./field-reset-judge.ts";
import { type HpaRecord, playHpas } from "./member-hpa.ts";
import { type FaultOutcome, inject, type Replica } from "./faults.ts";
import { MemberWatch } from "./member-watch.ts";
import { copyMemberObject, recreateMemberObject, type UserObject } from "./object-faults.ts";
import { ChaosUsageError, chaosUsage, type ChaosOptions, parseChaosOptions } from "./options.ts";
import { seededRandom } from "./random.ts";
import { supervise } from "./supervisor.ts";

const FAILURE_THRESHOLD_MS = 5_000;
/**
 * The hub's --cluster-ready-settle-period (10 s by default), shorter than the time a member that
 * registered again lacks the admin's labels (REGISTER_AGAIN_UNLABELLED_MS): the hub judges the new
 * Cluster's removals before the labels are back, so the hold of an earlier registration's Works
 * is what keeps the member's objects then.
 */
const READY_SETTLE_MS = 3_000;
const CONVERGENCE_TIMEOUT_MS = 240_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function operationManifests(o: Exclude<ChurnOperation, { op: "label" | "unlabel" }>): { apply: Manifest[]; remove: Manifest[] } {
  if ("template" in o) return { apply: [templateManifest(o.template) as Manifest], remove: [] };
  if (!("policy" in o)) return { apply: [], remove: [{ kind: o.kind, metadata: { name: o.name, namespace: NAMESPACE } }] };
  const { propagation, override } = groupPolicyManifests(o.group, o.policy);
  const overrideName = { kind: "OverridePolicy", metadata: { name: `override-${o.group}`, namespace: NAMESPACE } };
  return { apply: [...(propagation as Manifest[]), ...(override ? [override as Manifest] : [])], remove: override ? [] : [overrideName] };
}

/** The uid each user-made object has in its member now (undefined: gone), read from the members. */
async function userObjectUids(users: readonly UserObject[], fleet: Fleet): Promise<(member: string, id: string) => string | undefined> {
  const now = new Map<string, string>();
  for (const u of users) {
    const m = fleet.members.find((x) => x.name === u.member);
    if (m === undefined) continue;
    const rest = new KubeRest(m.kubeConfig());
    const name = u.id.slice(u.id.indexOf("/") + 1);
    const o = await rest.request<{ metadata: { uid: string } }>("GET", `/api/v1/namespaces/${NAMESPACE}/configmaps/${name}`, { timeoutMs: 10_000 }).catch(() => undefined);
    rest.close();
    if (o !== undefined) now.set(`${u.member} ${u.id}`, o.metadata.uid);
  }
  return (member, id) => now.get(`${member} ${id}`);
}

/** Makes one churn operation in the control cluster; returns the retries it took. */
async function writeOperation(rest: KubeRest, op: ChurnOperation): Promise<number> {
  if ("member" in op) return labelCluster(rest, op.member, clusterLabelPatch(op));
  const { apply, remove } = operationManifests(op);
  let retries = 0;
  for (const m of apply) retries += await persist(rest, m);
  for (const m of remove) retries += await persist(rest, m, true);
  return retries;
}

async function setUp(rest: KubeRest, model: ChurnModel, members: readonly string[]): Promise<void> {
  // The admin's labels on the Clusters, which place the label group (initialModel labels every member).
  for (const member of members) await labelCluster(rest, member, clusterLabelPatch({ op: model.labelled.includes(member) ? "label" : "unlabel" }));
  await persist(rest, { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } } as Manifest);
  const crd = sizedCrd(WIDGET_GROUP, "Widget", "widgets");
  await persist(rest, crd as Manifest);
  await persist(rest, {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ClusterPropagationPolicy",
    metadata: { name: "chaos-widgets-crd" },
    spec: { resourceSelectors: [{ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: `widgets.${WIDGET_GROUP}` }] },
  } as Manifest);
  for (const g of GROUPS) for (const m of groupPolicyManifests(g, model.policies[g]).propagation) await persist(rest, m as Manifest);
}

interface Report {
  seed: number;
  durationMs: number;
  members: number;
  faults: FaultOutcome[];
  churn: { operations: number; byOp: Record<string, number>; retries: number };
  /** Processes that exited by themselves and were started again, as kubelet would. */
  restarts: { name: string; atMs: number; exit: string }[];
  convergenceMs: number | null;
  check: MemberCheck;
  deletions: { observed: number; intended: number; unintended: ObservedDeletion[]; withNamespace: number; notBack: ObservedDeletion[] };
  /** Objects users made in members (a copy of Flotilla's under another name, or one deleted and applied again), and the copies Flotilla took. */
  userObjects: { made: number; copiesGone: UserObject[]; errors: string[] };
  /** Users' HPAs in members, and the faults that hit while one held a Deployment. */
  hpas: Omit<HpaRecord, "episodes"> & { made: number; scales: number; judgedReplicaValues: number; faultsWhileHeld: Record<string, number>; keptToTheEnd: number };
  /** Changes of spec.replicas on a Deployment an HPA held that the user's own scales did not make. */
  fieldResets: FieldReset[];
  ok: boolean;
}

async function run(o: ChaosOptions): Promise<Report> {
  const rng = seededRandom(o.seed);
  const faultRng = seededRandom(o.seed ^ 0x5eed);
  let fleet: Fleet | undefined;
  let flotilla: Flotilla | undefined;
  const watches: MemberWatch[] = [];
  try {
    fleet = await startFleet({ members: o.members });
    // The previous-version-replica fault's Flotilla (FLOTILLA_UPGRADE_FROM, default HEAD~1).
    const previous = await checkoutPreviousVersion(fleet.root);
    // The churn's moves and deletions are the user's intent, made in bulk (a 10-minute run passes the
    // brake's 20 a minute per cluster, and an etcd restore takes back a minute of templates at once):
    // the brake would hold them for a person, as it should. Here the judge decides instead; the
    // brake has its own test (test/e2e/deletion-brake.test.ts).
    flotilla = await startFlotilla(fleet, { hubProxy: true, clusterFailureThreshold: `${FAILURE_THRESHOLD_MS / 1000}s`, controlPlaneArgs: ["--deletion-budget-percent=100", `--cluster-ready-settle-period=${READY_SETTLE_MS}ms`] });
    const standby = await flotilla.startReplica();
    const replicas: Replica[] = [{ process: flotilla.controlPlane, healthPort: flotilla.controlPlaneHealthPort }, { process: standby.process, healthPort: standby.healthPort }];
    const names = fleet.members.map((m) => m.name);
    let model = initialModel(names);
    const rest = new KubeRest(fleet.control.kubeConfig());
    await setUp(rest, model, names);
    for (const m of fleet.members) {
      const w = new MemberWatch(m.name, m.kubeConfig());
      w.start();
      watches.push(w);
    }
    const history: IntentSnapshot[] = [{ atMs: Date.now(), wanted: wanted(model) }];
    const labels = new Map([...replicas.map((r) => [r.process, `control-plane :${r.healthPort}`] as const), ...[...flotilla.agents.values()].map((a) => [a.process, a.process.name] as const)]);
    const supervisor = supervise([...labels.keys()], labels, Date.now());
    const plan = planFaults(faultRng, { durationMs: o.durationMs, members: names, failureThresholdMs: FAILURE_THRESHOLD_MS, etcdRestore: o.etcdRestore });
    const start = Date.now();
    const faults: FaultOutcome[] = [];
    const f = fleet;
    const fl = flotilla;
    const control: ControlAccess = {
      rest,
      churn: new Lock(),
      model: () => model,
      rewind: (to) => {
        model = to;
        history.push({ atMs: Date.now(), wanted: wanted(model) });
      },
      memberCopies: (member, group) => watches.find((w) => w.member === member)?.size((id) => group === undefined || groupOf(id.slice(id.indexOf("/") + 1)) === group) ?? 0,
      policyManifest: (name) => GROUPS.flatMap((g) => groupPolicyManifests(g, model.policies[g]).propagation as Manifest[]).find((m) => m.metadata.name === name),
    };
    const faulting = (async () => {
      for (const fault of plan) {
        await sleep(Math.max(0, start + fault.atMs - Date.now()));
        const out = await inject(fault, f, fl, replicas, supervisor, control, previous);
        faults.push(out);
        console.error(`chaos: +${((Date.now() - start) / 1000).toFixed(1)}s ${out.kind} ${out.target} (${out.tookMs} ms)${out.detail ? `: ${out.detail}` : ""}${out.error ? ` FAILED: ${out.error}` : ""}`);
      }
    })();
    // Users' own writes in the members, beside the faults (issue 37): copies of Flotilla's objects, and objects deleted and applied again.
    const users: UserObject[] = [];
    const userErrors: string[] = [];
    const writing = (async () => {
      for (const w of planUserWrites(seededRandom(o.seed ^ 0x05e7), { durationMs: o.durationMs, members: names })) {
        await sleep(Math.max(0, start + w.atMs - Date.now()));
        const m = f.members.find((x) => x.name === w.member);
        if (m === undefined) continue;
        try {
          const made = w.how === "copy" ? await copyMemberObject(m.kubeConfig(), m.name, w.pick, w.atMs) : await recreateMemberObject(m.kubeConfig(), m.name, w.pick);
          if (made !== undefined) users.push(made);
          console.error(`chaos: +${((Date.now() - start) / 1000).toFixed(1)}s user-${w.how} ${made === undefined ? `nothing of Flotilla's in ${m.name}` : `${made.id} in ${m.name} (uid ${made.uid})`}`);
        } catch (err) {
          // The member's apiserver may be down (a fault): the user tries again later, as a person would; not the run's failure.
          userErrors.push(`${w.how} in ${m.name}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    })();
    const byOp: Record<string, number> = {};
    let operations = 0;
    let retries = 0;
    /** One churn operation, under the lock (one at a time with the injector's policy and etcd faults, control-writes.ts). */
    const churn = (next: (m: ChurnModel) => ChurnOperation | undefined): Promise<boolean> =>
      control.churn.run(async () => {
        const op = next(model);
        if (op === undefined) return false;
        const sentAt = Date.now();
        retries += await writeOperation(rest, op);
        model = applyOperation(model, op);
        history.push({ atMs: sentAt, wanted: wanted(model) });
        byOp[op.op] = (byOp[op.op] ?? 0) + 1;
        operations++;
        return true;
      });
    // Users' HPAs in the members (issue 37), beside the faults; their templates' replicas change while they hold.
    const hpaPlaying = playHpas(planHpas(seededRandom(o.seed ^ 0x0a7a), { durationMs: o.durationMs, members: names }), f.members, start, (deployment, replicas) => churn((m) => replicasUpdate(m, deployment, replicas)), (line) =>
      console.error(`chaos: +${((Date.now() - start) / 1000).toFixed(1)}s ${line}`),
    );
    while (Date.now() - start < o.durationMs) {
      await churn((m) => nextOperation(rng, m));
      await sleep(rng.between(200, 800));
    }
    await faulting;
    await writing;
    const hpaRecord = await hpaPlaying;
    const churnEnded = Date.now();
    console.error(`chaos: churn and faults over after ${((churnEnded - start) / 1000).toFixed(0)} s: ${operations} operations, ${faults.length} faults; waiting for convergence`);
    const members = fleet.members.map((m) => ({ name: m.name, kc: m.kubeConfig() }));
    let check: MemberCheck = { missing: [], stray: [], mismatched: [] };
    let convergenceMs: number | null = null;
    while (Date.now() - churnEnded < CONVERGENCE_TIMEOUT_MS) {
      check = await checkFleet(model, members, fleet.control.kubeConfig(), fleet.root).catch((err: unknown) => ({ missing: [], stray: [], mismatched: [{ member: "-", id: "-", detail: String(err) }] }));
      if (check.missing.length + check.stray.length + check.mismatched.length === 0) {
        convergenceMs = Date.now() - churnEnded;
        break;
      }
      const findings = [...check.missing.map((x) => ({ ...x, what: "missing" })), ...check.stray.map((x) => ({ ...x, what: "stray" })), ...check.mismatched.map((x) => ({ ...x, what: "mismatched" }))];
      console.error(`chaos: not converged yet: ${findings.length} findings, e.g. ${JSON.stringify(findings.slice(0, 2))}`);
      await sleep(5_000);
    }
    // Deletions the watch has yet to see would be seen within a second or two.
    await sleep(2_000);
    supervisor.stop();
    const restarts = supervisor.restarts();
    rest.close();
    const observed = watches.flatMap((w) => w.deletions());
    const namespaces = faults.flatMap((x): NamespaceDeletion[] => (x.namespace && x.member ? [{ member: x.member, ...x.namespace }] : []));
    const { unintended, withNamespace, notBack } = judgeDeletions(history, observed, namespaces, (member, id) => watches.find((w) => w.member === member)?.holds(id) === true, users);
    const copiesGone = userCopiesGone(users, await userObjectUids(users, fleet), namespaces);
    const replicaChanges = watches.flatMap((w) => w.replicaChanges());
    const resets = fieldResets(hpaRecord.episodes, replicaChanges, namespaces);
    const { episodes, ...hpaCounts } = hpaRecord;
    const held = (atMs: number) => episodes.some((e) => e.scales.length > 0 && atMs >= e.fromMs && atMs < heldUntil(e, namespaces));
    const hpas = {
      ...hpaCounts,
      made: episodes.length,
      scales: episodes.reduce((n, e) => n + e.scales.length, 0),
      judgedReplicaValues: judgedChanges(episodes, replicaChanges, namespaces).length,
      faultsWhileHeld: faults.filter((x) => held(x.startedMs)).reduce<Record<string, number>>((n, x) => ({ ...n, [x.kind]: (n[x.kind] ?? 0) + 1 }), {}),
      keptToTheEnd: episodes.filter((e) => e.toMs === undefined).length,
    };
    const ok = convergenceMs !== null && unintended.length === 0 && notBack.length === 0 && copiesGone.length === 0 && resets.length === 0 && faults.every((x) => x.error === undefined);
    if (!ok && o.keepLogs !== undefined) {
      await cp(flotilla.logsDir, o.keepLogs, { recursive: true });
      console.error(`chaos: logs kept in ${o.keepLogs}`);
    }
    return {
      seed: o.seed,
      durationMs: o.durationMs,
      members: o.members,
      faults,
      churn: { operations, byOp, retries },
      restarts,
      convergenceMs,
      check,
      deletions: { observed: observed.length, intended: observed.length - unintended.length - withNamespace.length, unintended, withNamespace: withNamespace.length, notBack },
      userObjects: { made: users.length, copiesGone, errors: userErrors },
      hpas,
      fieldResets: resets,
      ok,
    };
  } finally {
    for (const w of watches) w.stop();
    await flotilla?.stop();
    await fleet?.stop();
  }
}

function summary(r: Report): string {
  const conv = r.convergenceMs === null ? `did not converge in ${CONVERGENCE_TIMEOUT_MS / 1000} s` : `converged in ${(r.convergenceMs / 1000).toFixed(1)} s`;
  const failed = r.faults.filter((f) => f.error !== undefined).length;
  return (
    `chaos: seed ${r.seed}, ${r.durationMs / 1000} s, ${r.members} members: ${r.faults.length} faults${failed ? ` (${failed} failed to inject)` : ""}, ${r.churn.operations} churn operations, ${r.restarts.length} restarts after an exit of its own; ${conv}; ` +
    `${r.check.missing.length} missing, ${r.check.stray.length} stray, ${r.check.mismatched.length} mismatched, ${r.deletions.unintended.length} unintended deletions (of ${r.deletions.observed} deletions seen; ` +
    `${r.deletions.withNamespace} with a deleted member namespace, ${r.deletions.notBack.length} of them not back); ${r.userObjects.made} objects users made, ${r.userObjects.copiesGone.length} copies gone; ` +
    `${r.churn.byOp.label ?? 0} + ${r.churn.byOp.unlabel ?? 0} Cluster labels set + removed; ${r.hpas.made} users' HPAs (${r.hpas.scales} scales, ${Object.values(r.hpas.faultsWhileHeld).reduce((a, b) => a + b, 0)} faults while one held), ${r.fieldResets.length} field resets — ${r.ok ? "PASS" : "FAIL"}`
  );
}

async function main(argv: string[]): Promise<number> {
  const o = parseChaosOptions(argv, Date.now());
  if (o.help) {
    console.log(chaosUsage);
    return 0;
  }
  console.error(`chaos: seed ${o.seed}, ${o.durationMs / 1000} s, ${o.members} members`);
  const report = await run(o);
  if (o.json !== undefined) await writeFile(o.json, `${JSON.stringify(report, null, 2)}\n`);
  if (!report.ok) console.error(JSON.stringify({ check: report.check, unintended: report.deletions.unintended, notBack: report.deletions.notBack, copiesGone: report.userObjects.copiesGone, fieldResets: report.fieldResets, failedFaults: report.faults.filter((x) => x.error !== undefined) }, null, 2));
  console.log(summary(report));
  return report.ok ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ChaosUsageError) {
      console.error(`chaos: ${err.message}\n\n${chaosUsage}`);
      process.exit(2);
    }
    console.error(`chaos: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
