// The agent's identity (DESIGN §7): a client certificate for its cluster. Either files given by
// flags (signed by `flotilla certs agent`), or a Secret in the member that the agent fills itself:
// on first start it registers with a bootstrap token (a new key, a CSR, the Cluster created by the
// control plane), and before the certificate expires it renews it over the hub, authenticated by
// the current one. The key never leaves the member.
import { readFile } from "node:fs/promises";
import { credentials, Metadata, type ServiceError, status as GrpcStatus } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { SECRETS } from "../../shared/api/resources.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { RegistrationClient } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { certificateNotAfter, createCsr } from "../../shared/agent-pki.ts";

export interface AgentCredentials {
  certPem: string;
  keyPem: string;
}

/** How a new member registers (from the agent's flags). */
export interface RegistrationOptions {
  address: string;
  serverName?: string;
  token: string;
  region?: string;
  zone?: string;
  provider?: string;
}

/** A refusal that retrying cannot fix (a bad token, a taken name): the agent stops and says why. */
export class RegistrationRefused extends Error {
  override name = "RegistrationRefused";
}

const FIELD_MANAGER = "flotilla-agent";
const RETRY_MS = [1000, 2000, 5000, 10_000, 30_000];

/**
 * When to renew a certificate received at `receivedAt`: `renewBefore` ahead of expiry, but never
 * before half of the time left at receipt has passed (so a short-lived certificate is not renewed
 * in a loop).
 */
export function renewAt(notAfter: number, receivedAt: number, renewBeforeMs: number): number {
  return Math.max(notAfter - renewBeforeMs, receivedAt + (notAfter - receivedAt) / 2);
}

export class CredentialStore {
  private readonly rest: KubeRest;
  private readonly namespace: string;
  private readonly secretName: string;
  private readonly caPem: Buffer;
  private readonly clusterName: string;
  private readonly log: Logger;

  constructor(opts: { rest: KubeRest; namespace: string; secretName: string; caPem: Buffer; clusterName: string; log: Logger }) {
    this.rest = opts.rest;
    this.namespace = opts.namespace;
    this.secretName = opts.secretName;
    this.caPem = opts.caPem;
    this.clusterName = opts.clusterName;
    this.log = opts.log;
  }

  /** Credentials from files (flags), else from the Secret, else by registering with the token. */
  async load(files: { certFile?: string; keyFile?: string }, registration: RegistrationOptions | undefined): Promise<AgentCredentials & { renewable: boolean }> {
    if (files.certFile && files.keyFile) {
      const [certPem, keyPem] = await Promise.all([readFile(files.certFile, "utf8"), readFile(files.keyFile, "utf8")]);
      return { certPem, keyPem, renewable: false };
    }
    const stored = await this.read();
    const notAfter = stored === undefined ? undefined : certificateNotAfter(stored.certPem);
    if (stored !== undefined && notAfter !== undefined && notAfter.getTime() > Date.now()) {
      this.log.info({ secret: this.secretName, notAfter: notAfter.toISOString() }, "using the stored agent certificate");
      return { ...stored, renewable: true };
    }
    if (registration === undefined) {
      throw new RegistrationRefused(
        stored === undefined
          ? `no credentials: give --tls-cert and --tls-key, or --bootstrap-token to register (no Secret ${this.namespace}/${this.secretName} yet)`
          : `the stored certificate in ${this.namespace}/${this.secretName} expired; give a new --bootstrap-token to register again`,
      );
    }
    const creds = await this.register(registration);
    await this.write(creds);
    return { ...creds, renewable: true };
  }

  /** Stores renewed credentials. */
  async write(creds: AgentCredentials): Promise<void> {
    await this.rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: this.namespace } } }).catch((err: unknown) => {
      if (!isKubeStatus(err, 409)) throw err;
    });
    const secret: KubeObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: this.secretName, namespace: this.namespace, labels: { "app.kubernetes.io/managed-by": "flotilla-agent" } },
      type: "kubernetes.io/tls",
      data: { "tls.crt": b64(creds.certPem), "tls.key": b64(creds.keyPem), "ca.crt": this.caPem.toString("base64") },
    };
    await this.rest.apply(objectPath(SECRETS, this.namespace, this.secretName), secret, FIELD_MANAGER);
  }

  private async read(): Promise<AgentCredentials | undefined> {
    const s = await this.rest.get<KubeObject>(objectPath(SECRETS, this.namespace, this.secretName)).catch((err: unknown) => {
      if (isKubeStatus(err, 404)) return undefined;
      throw err;
    });
    const data = (s?.data ?? {}) as Record<string, string>;
    if (!data["tls.crt"] || !data["tls.key"]) return undefined;
    return { certPem: Buffer.from(data["tls.crt"], "base64").toString("utf8"), keyPem: Buffer.from(data["tls.key"], "base64").toString("utf8") };
  }

  /** Registers, retrying while the control plane cannot be reached; a refusal is final. */
  private async register(r: RegistrationOptions): Promise<AgentCredentials> {
    const { csrPem, keyPem } = await createCsr(this.clusterName);
    const options: Record<string, string> = {};
    if (r.serverName) options["grpc.ssl_target_name_override"] = r.serverName;
    const client = new RegistrationClient(r.address, credentials.createSsl(this.caPem), options);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const res = await new Promise<{ certificate: string }>((resolve, reject) => {
            client.register(
              { clusterName: this.clusterName, bootstrapToken: r.token, csr: csrPem, region: r.region ?? "", zone: r.zone ?? "", provider: r.provider ?? "" },
              new Metadata(),
              { deadline: Date.now() + 30_000 },
              (err, out) => (err ? reject(err) : resolve(out)),
            );
          });
          this.log.info({ cluster: this.clusterName, notAfter: certificateNotAfter(res.certificate).toISOString() }, "registered with the control plane");
          return { certPem: res.certificate, keyPem };
        } catch (err) {
          const e = err as ServiceError;
          if (e.code !== GrpcStatus.UNAVAILABLE && e.code !== GrpcStatus.DEADLINE_EXCEEDED) {
            throw new RegistrationRefused(`registration refused: ${e.details || e.message}`);
          }
          const delay = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)] as number;
          this.log.warn({ why: e.details || e.message, retryInMs: delay }, "cannot reach the registration endpoint; retrying");
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
    } finally {
      client.close();
    }
  }
}

/** Renews the certificate when renewAt says, for as long as the agent runs. */
export class CertificateRenewer {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly opts: {
    clusterName: string;
    renewBeforeMs: number;
    renew: (csrPem: string) => Promise<string>;
    store: CredentialStore;
    use: (creds: AgentCredentials) => void;
    log: Logger;
  };

  constructor(opts: CertificateRenewer["opts"]) {
    this.opts = opts;
  }

  /** Schedules the renewal of a certificate received now. */
  start(certPem: string): void {
    const at = renewAt(certificateNotAfter(certPem).getTime(), Date.now(), this.opts.renewBeforeMs);
    this.schedule(Math.max(0, at - Date.now()));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    // setTimeout holds at most ~24.8 days; a longer wait is taken in steps.
    const step = Math.min(delayMs, 2 ** 31 - 1);
    this.timer = setTimeout(() => (step < delayMs ? this.schedule(delayMs - step) : void this.renewNow()), step);
    this.timer.unref();
  }

  private async renewNow(): Promise<void> {
    const { log } = this.opts;
    try {
      const { csrPem, keyPem } = await createCsr(this.opts.clusterName);
      const certPem = await this.opts.renew(csrPem);
      await this.opts.store.write({ certPem, keyPem });
      this.opts.use({ certPem, keyPem });
      log.info({ notAfter: certificateNotAfter(certPem).toISOString() }, "agent certificate renewed");
      this.start(certPem);
    } catch (err) {
      log.error({ err: (err as ServiceError).details || (err as Error).message }, "certificate renewal failed; retrying in 10s");
      this.schedule(10_000);
    }
  }
}

function b64(s: string): string {
  return Buffer.from(s, "utf8").toString("base64");
}
