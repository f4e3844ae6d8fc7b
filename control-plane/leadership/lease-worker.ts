// The leader election thread's entry (lease-thread.ts): a LeaderElector with its own connections,
// writing its state to shared memory and telling the main thread when leadership changes.
import { parentPort, workerData } from "node:worker_threads";
import { KubeConfig } from "@kubernetes/client-node";
import { KubeRest } from "../../shared/kube-rest.ts";
import { createLogger } from "../../shared/logger.ts";
import { LeaderElector } from "./leader-election.ts";
import { DEPOSED, LEADING, type LeaseWorkerData, type LeaseWorkerMessage, sharedLeaseState } from "./lease-thread.ts";

const data = workerData as LeaseWorkerData;
const port = parentPort;
if (port === null) throw new Error("lease-worker.ts runs as a worker thread (lease-thread.ts)");
const post = (m: LeaseWorkerMessage) => port.postMessage(m);
const state = sharedLeaseState(data.state);
const kc = new KubeConfig();
kc.loadFromString(data.kubeconfig);
const log = createLogger("flotilla-control-plane", data.logLevel).child({ thread: "leader-election" });
const rest = new KubeRest(kc, { maxSockets: 2, userAgent: data.userAgent, writeFence: () => elector.writeFence() });
const elector: LeaderElector = new LeaderElector({
  ...data.election,
  rest,
  log,
  // The renewal time is stored before the flag, so the main thread never sees a leader without one.
  onRenewed: (at) => Atomics.store(state.renewedAt, 0, BigInt(at)),
  // Whom this replica lets follow its reports: a message, as nothing fences on it (lease-thread.ts).
  onObserved: (observation) => post({ type: "observed", observation }),
  onStartedLeading: () => {
    Atomics.store(state.flags, LEADING, 1);
    post({ type: "leading" });
  },
  onStoppedLeading: () => {
    Atomics.store(state.flags, DEPOSED, 1);
    Atomics.store(state.flags, LEADING, 0);
    post({ type: "stoppedLeading" });
  },
});
port.on("message", (m: { type: "stop" }) => {
  if (m.type !== "stop") return;
  // Released: a standby may take over at once. This replica writes nothing any more.
  void elector.stop().finally(() => {
    Atomics.store(state.flags, LEADING, 0);
    rest.close();
    post({ type: "released" });
  });
});
elector.start().then(
  () => post({ type: "started" }),
  (err: unknown) => post({ type: "startFailed", message: String(err) }),
);
