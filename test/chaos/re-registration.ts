// The re-registration fault (issue 37): a member's agent is lost, an admin removes its Cluster by
// force, and the member registers again with a bootstrap token, as a fresh install of the agent
// would (its credentials Secret gone): a new Cluster, without the labels the admin had set. The
// admin sets them again a few seconds later. Meanwhile the member keeps what Flotilla applied: the
// hub holds the earlier registration's Works (control-plane/hub/outbound-deletions.ts), so nothing
// the labels placed there is removed; the intent never changed, so the judge counts any such
// removal as unintended.
import type { KubeConfig } from "@kubernetes/client-node";
import { call, connect } from "../../bin/ctl/connection.ts";
import { isKubeStatus, KubeRest } from "../../shared/kube-rest.ts";
import type { ManagedProcess } from "../env/managed-process.ts";
import { waitFor } from "../env/wait.ts";

/** Where a fresh agent keeps the credentials it registered for (the chart's default). */
const CREDENTIALS = "/api/v1/namespaces/flotilla-system/secrets/flotilla-agent-credentials";

/** The agent's arguments to register with a token instead of its certificate files (or earlier token). */
export function registrationArgs(args: readonly string[], token: string, registrationAddress: string): string[] {
  const kept = args.filter((a) => !/^--(tls-cert|tls-key|bootstrap-token|registration-address)=/.test(a));
  return [...kept, `--bootstrap-token=${token}`, `--registration-address=${registrationAddress}`];
}

const clusterUid = async (rest: KubeRest, member: string): Promise<string | undefined> =>
  (await rest.request<{ metadata: { uid: string } }>("GET", `/apis/flotilla.dev/v1alpha1/clusters/${member}`, { timeoutMs: 10_000 }).catch((err: unknown) => (isKubeStatus(err, 404) ? undefined : Promise.reject(err))))?.metadata.uid;

/**
 * kill -9 the agent, `flotillactl unjoin <member> --force`, the agent's credentials Secret deleted,
 * `flotillactl token create`, and the agent started again with the token; resolves once the new
 * Cluster is there (its uid), the agent held meanwhile by the caller.
 */
export async function registerAgain(o: { member: string; agent: ManagedProcess; memberKc: KubeConfig; controlKc: KubeConfig; stateDir: string; registrationAddress: string }): Promise<{ oldUid: string; newUid: string }> {
  const control = new KubeRest(o.controlKc);
  const memberRest = new KubeRest(o.memberKc);
  const { client } = await connect({ "state-dir": o.stateDir });
  try {
    const oldUid = (await clusterUid(control, o.member)) ?? "";
    await o.agent.kill();
    await call(client, client.unjoin, { cluster: o.member, force: true }, 30_000);
    await waitFor(async () => ((await clusterUid(control, o.member).catch(() => oldUid)) === oldUid ? undefined : true), { what: `Cluster ${o.member} gone`, timeoutMs: 60_000, intervalMs: 250 });
    await memberRest.delete(CREDENTIALS).catch((err: unknown) => (isKubeStatus(err, 404) ? undefined : Promise.reject(err)));
    const { token } = await call(client, client.createToken, { ttlSeconds: 3_600, uses: 1, description: `chaos: ${o.member} registers again` }, 30_000);
    await o.agent.restart(120_000, { args: registrationArgs(o.agent.args, token, o.registrationAddress) });
    const newUid = await waitFor(async () => {
      const uid = await clusterUid(control, o.member).catch(() => undefined);
      return uid !== undefined && uid !== oldUid ? uid : undefined;
    }, { what: `${o.member} registered again`, timeoutMs: 90_000, intervalMs: 250 });
    return { oldUid, newUid };
  } finally {
    client.close();
    control.close();
    memberRest.close();
  }
}
