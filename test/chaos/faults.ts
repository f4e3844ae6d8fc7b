// The fault injector: does one planned fault to the running fleet and undoes it after downMs
// (a killed process restarts in place, a stopped one continues, a deleted policy is created
// again); what a person deletes by hand (a binding, a member namespace) is left to Flotilla.
import { join } from "node:path";
import type { Fleet } from "../env/fleet.ts";
import type { Flotilla } from "../env/flotilla.ts";
import type { ManagedProcess } from "../env/managed-process.ts";
import { argsOnVersion, type PreviousVersion } from "../env/previous-version.ts";
import { waitFor } from "../env/wait.ts";
import { clusterLabelPatch, LABEL_GROUP } from "./churn-model.ts";
import { type ControlAccess, labelCluster, persist } from "./control-writes.ts";
import { type Fault, fromPlanned } from "./fault-plan.ts";
import { restoreEtcd, snapshotEtcd } from "./etcd-restore.ts";
import { deleteBinding, deleteMemberNamespace } from "./object-faults.ts";
import { registerAgain } from "./re-registration.ts";

export interface Replica {
  process: ManagedProcess;
  healthPort: number;
}

export interface FaultOutcome extends Fault {
  /** Which process it hit. */
  target: string;
  /** When it was injected (Date.now()), and how long it took, restart included. */
  startedMs: number;
  tookMs: number;
  /** What it found or saw, for the log line. */
  detail?: string;
  /** delete-member-namespace: when the deletion was asked for and when the namespace was seen gone (Date.now() times), in `member` (which may differ from the planned one). */
  namespace?: { fromMs: number; goneMs: number };
  error?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The replica whose /metrics says it leads; the first one when none does (mid-failover). */
export async function leader(flotilla: Flotilla, replicas: Replica[]): Promise<Replica> {
  for (const r of replicas) {
    const m = await flotilla.metricsAt(r.healthPort).catch(() => ({}) as Record<string, number>);
    if (m.flotilla_leader === 1) return r;
  }
  return replicas[0] as Replica;
}

function processNamed(fleet: Fleet, name: string): ManagedProcess {
  const p = fleet.all().flatMap((c) => c.processes).find((x) => x.name === name);
  if (p === undefined) throw new Error(`no process ${name}`);
  return p;
}

/** Keeps the supervisor's hands off the processes a fault works on. */
export interface Holder {
  hold(p: ManagedProcess): void;
  release(p: ManagedProcess): void;
}

export async function inject(f: Fault, fleet: Fleet, flotilla: Flotilla, replicas: Replica[], holder: Holder, control: ControlAccess, previous: PreviousVersion): Promise<FaultOutcome> {
  const started = Date.now();
  let target = "";
  let extra: Pick<FaultOutcome, "detail" | "namespace" | "member"> = {};
  const held: ManagedProcess[] = [];
  const killAndRestart = async (processes: ManagedProcess[], downMs: number): Promise<void> => {
    for (const p of processes) {
      holder.hold(p);
      held.push(p);
      await p.kill();
    }
    await sleep(downMs);
    for (const p of processes) await p.restart(120_000);
  };
  try {
    switch (f.kind) {
      case "kill-leader":
      case "kill-standby": {
        const lead = await leader(flotilla, replicas);
        const r = f.kind === "kill-leader" ? lead : (replicas.find((x) => x !== lead) as Replica);
        target = `control-plane :${r.healthPort}`;
        await killAndRestart([r.process], f.downMs);
        break;
      }
      case "kill-agent": {
        const a = flotilla.agents.get(f.member ?? "");
        if (a === undefined) throw new Error(`no agent for ${f.member}`);
        target = a.process.name;
        await killAndRestart([a.process], f.downMs);
        break;
      }
      case "stop-agent": {
        const a = flotilla.agents.get(f.member ?? "");
        if (a === undefined) throw new Error(`no agent for ${f.member}`);
        target = a.process.name;
        holder.hold(a.process);
        held.push(a.process);
        a.process.pause();
        await sleep(f.downMs);
        a.process.resume();
        break;
      }
      case "kill-member-apiserver":
        target = `${f.member}-kube-apiserver`;
        await killAndRestart([processNamed(fleet, target)], f.downMs);
        break;
      case "kill-control-storage": {
        target = "control-kube-apiserver + control-etcd";
        const apiserver = processNamed(fleet, "control-kube-apiserver");
        const etcd = processNamed(fleet, "control-etcd");
        await apiserver.kill();
        await etcd.kill();
        await sleep(f.downMs);
        await etcd.restart(120_000);
        await apiserver.restart(120_000);
        // the lease could not be renewed meanwhile: the leader exits, and the supervisor restarts it
        break;
      }
      case "delete-binding": {
        const name = await deleteBinding(control.rest, f.pick ?? 0);
        target = name === undefined ? "no ResourceBinding (none yet)" : `ResourceBinding ${name}`;
        await sleep(f.downMs);
        break;
      }
      case "recreate-policy": {
        const name = f.policy ?? "";
        target = `PropagationPolicy ${name}`;
        // The churn waits meanwhile, so the policy comes back with the spec the model holds.
        await control.churn.run(async () => {
          const m = control.policyManifest(name);
          if (m === undefined) throw new Error(`the churn model has no PropagationPolicy ${name}`);
          await persist(control.rest, m, true);
          await sleep(f.downMs);
          await persist(control.rest, control.policyManifest(name) ?? m);
        });
        break;
      }
      case "delete-member-namespace": {
        // The planned member, or the next one whose namespace holds copies: churn may have moved all away.
        const member = fromPlanned(fleet.members, f.member).find((m) => control.memberCopies(m.name) > 0);
        if (member === undefined) {
          target = "namespace chaos in no member (none holds a copy now)";
          break;
        }
        target = `namespace chaos in ${member.name}`;
        const { gone, ...namespace } = await deleteMemberNamespace(member.kubeConfig());
        extra = { member: member.name, namespace, detail: gone ? `gone after ${namespace.goneMs - namespace.fromMs} ms` : `still terminating after ${namespace.goneMs - namespace.fromMs} ms` };
        await sleep(f.downMs);
        break;
      }
      case "previous-version-replica": {
        const lead = await leader(flotilla, replicas);
        const old = replicas.find((x) => x !== lead) as Replica;
        const current = [...old.process.args];
        target = `control-plane :${old.healthPort} on ${previous.commit.slice(0, 7)}`;
        for (const r of replicas) {
          holder.hold(r.process);
          held.push(r.process);
        }
        // As a rolling update does it: SIGTERM, then the other version on the same ports and identity.
        await old.process.restart(120_000, { args: argsOnVersion(previous, current), graceful: true });
        await lead.process.restart(120_000, { graceful: true });
        const led = await waitFor(async () => ((await flotilla.metricsAt(old.healthPort).catch(() => ({}) as Record<string, number>)).flotilla_leader === 1 ? true : undefined), {
          what: "the previous version to lead",
          timeoutMs: 30_000,
          intervalMs: 250,
        }).then(
          () => true,
          () => false,
        );
        await sleep(f.downMs);
        await old.process.restart(120_000, { args: current, graceful: true });
        extra = { detail: led ? `the previous version led for ${f.downMs} ms` : "the previous version ran as the standby (it did not take the lease in 30 s)" };
        break;
      }
      case "register-again": {
        const a = flotilla.agents.get(f.member ?? "");
        const m = fleet.members.find((x) => x.name === f.member);
        if (a === undefined || m === undefined) throw new Error(`no agent for ${f.member}`);
        target = `${m.name} registers again`;
        holder.hold(a.process);
        held.push(a.process);
        const { oldUid, newUid } = await registerAgain({ member: m.name, agent: a.process, memberKc: m.kubeConfig(), controlKc: fleet.control.kubeConfig(), stateDir: fleet.root, registrationAddress: `127.0.0.1:${flotilla.registrationPort}` });
        const registered = Date.now();
        const copies = control.memberCopies(m.name);
        const byLabel = control.memberCopies(m.name, LABEL_GROUP);
        await sleep(f.downMs);
        // The admin sets the labels again as the intent has them (the churn waits meanwhile).
        const labelled = await control.churn.run(async () => {
          const on = control.model().labelled.includes(m.name);
          await labelCluster(control.rest, m.name, clusterLabelPatch({ op: on ? "label" : "unlabel" }));
          return on;
        });
        extra = { detail: `Cluster ${oldUid} → ${newUid}, ${Date.now() - registered} ms without the admin's labels${labelled ? "" : " (the intent has none on it now)"}; the member held ${copies} copies, ${byLabel} of them placed by the label` };
        break;
      }
      case "restore-control-etcd": {
        target = "control-etcd (snapshot, then restore)";
        // The churn waits during the snapshot and the restore, so the model matches what etcd holds.
        const { snapshot, model } = await control.churn.run(async () => ({ snapshot: await snapshotEtcd(fleet.control, join(fleet.root, "etcd-snapshot")), model: control.model() }));
        await sleep(Math.max(0, snapshot.takenAtMs + f.downMs - Date.now()));
        const { revertedRevisions } = await control.churn.run(async () => {
          const r = await restoreEtcd(fleet.control, snapshot);
          control.rewind(model);
          return r;
        });
        extra = { detail: `${revertedRevisions} revisions undone` };
        break;
      }
    }
    return { ...f, target, startedMs: started, tookMs: Date.now() - started, ...extra };
  } catch (err) {
    return { ...f, target, startedMs: started, tookMs: Date.now() - started, ...extra, error: err instanceof Error ? err.message : String(err) };
  } finally {
    for (const p of held) holder.release(p);
  }
}
