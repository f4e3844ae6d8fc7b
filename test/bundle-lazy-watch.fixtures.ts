// An entry point for test/bundle.test.ts: bundled lazy (scripts/lean-agent.ts), it watches with
// client-node's own Watch, whose fetch is undici's, loaded from <name>.lazy.cjs at its first call;
// prints the first event's type and exits.
//   node <bundle> http://127.0.0.1:PORT
import { KubeConfig, Watch } from "@kubernetes/client-node";

const kc = new KubeConfig();
kc.loadFromOptions({ clusters: [{ name: "c", server: process.argv[2] ?? "", skipTLSVerify: true }], users: [{ name: "u" }], contexts: [{ name: "x", cluster: "c", user: "u" }], currentContext: "x" });
const controller = await new Watch(kc).watch(
  "/api/v1/pods",
  {},
  (phase) => {
    console.log(phase);
    controller.abort();
  },
  () => undefined,
);
