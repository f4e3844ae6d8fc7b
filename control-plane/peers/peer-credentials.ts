// How the leader dials the other replicas (PeerMetrics.Collect, PeerStatus.Follow): a client
// certificate it signs itself with the CA key (O=flotilla:control-plane, 24 h, signed again every
// 12 h), and the channel options every peer client uses.
import { type ChannelCredentials, type ChannelOptions, credentials } from "@grpc/grpc-js";
import { AGENT_ORGANIZATION, ADMIN_ORGANIZATION, CONTROL_PLANE_ORGANIZATION, type KeyPair, VIEWER_ORGANIZATION } from "../../shared/pki.ts";

const CERT_VALIDITY_MS = 24 * 3_600_000;
const CERT_RENEW_AFTER_MS = 12 * 3_600_000;
const CLIENT_ORGS = [AGENT_ORGANIZATION, ADMIN_ORGANIZATION, VIEWER_ORGANIZATION, CONTROL_PLANE_ORGANIZATION];

/** This replica's client credentials for the other replicas, shared by every peer client. */
export class ReplicaCredentials {
  private readonly caPem: string;
  private readonly mint: (validityMs: number) => Promise<KeyPair>;
  private readonly now: () => number;
  private current: { at: number; value: ChannelCredentials; generation: number } | undefined;
  private minting: Promise<void> | undefined;

  /** mint signs this replica a client certificate (O=flotilla:control-plane) valid for validityMs. */
  constructor(opts: { caPem: string; mint: (validityMs: number) => Promise<KeyPair>; now?: () => number }) {
    this.caPem = opts.caPem;
    this.mint = opts.mint;
    this.now = opts.now ?? Date.now;
  }

  /** The credentials, signed again before they expire; generation changes when they do (clients made with older ones are replaced). */
  async get(): Promise<{ value: ChannelCredentials; generation: number }> {
    if (this.current === undefined || this.now() - this.current.at >= CERT_RENEW_AFTER_MS) {
      this.minting ??= this.renew().finally(() => (this.minting = undefined));
      await this.minting;
    }
    const c = this.current as { value: ChannelCredentials; generation: number };
    return { value: c.value, generation: c.generation };
  }

  private async renew(): Promise<void> {
    const pair = await this.mint(CERT_VALIDITY_MS);
    // The other replica is dialled by its pod address, which the hub's serving certificate does not
    // name: its identity is the CA's signature on a serving certificate (TLS checks the chain and
    // the serverAuth usage), and a client certificate's subject is refused besides.
    const checkServerIdentity = (_host: string, cert: { subject?: { O?: string | string[] } }) => {
      const orgs = [cert.subject?.O ?? []].flat();
      return orgs.some((o) => CLIENT_ORGS.includes(o)) ? new Error("the replica presented a client certificate") : undefined;
    };
    const value = credentials.createSsl(Buffer.from(this.caPem), Buffer.from(pair.keyPem), Buffer.from(pair.certPem), { checkServerIdentity });
    this.current = { at: this.now(), value, generation: (this.current?.generation ?? 0) + 1 };
  }
}

/** The channel options of a client to another replica, taking answers up to maxReceiveBytes. */
export function peerChannelOptions(maxReceiveBytes: number): ChannelOptions {
  return {
    "grpc.max_receive_message_length": maxReceiveBytes,
    // The TLS server name (SNI) only: a pod IP may not be one, and checkServerIdentity does not read it.
    "grpc.ssl_target_name_override": "flotilla-control-plane",
    "grpc.initial_reconnect_backoff_ms": 500,
    "grpc.max_reconnect_backoff_ms": 10_000,
  };
}
