// `flotillactl kubeconfig --cluster X`: a kubeconfig for kubectl (or any client) that reaches
// member X through the control plane's member API, as the caller's own certificate. Pure.

/** What the kubeconfig is made of: the endpoint, the CA to trust, the name to verify, the caller's certificate and key (PEM). */
export interface MemberKubeconfigInput {
  cluster: string;
  server: string;
  caPem: string;
  /** The TLS name the control plane's certificate is checked against; undefined: the host of the server. */
  serverName: string | undefined;
  certPem: string;
  keyPem: string;
}

const b64 = (pem: string) => Buffer.from(pem, "utf8").toString("base64");

/** The kubeconfig: cluster, user and context `flotilla-<cluster>`, that context current. */
export function memberKubeconfig(i: MemberKubeconfigInput): Record<string, unknown> {
  const name = `flotilla-${i.cluster}`;
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server: i.server, "certificate-authority-data": b64(i.caPem), ...(i.serverName === undefined ? {} : { "tls-server-name": i.serverName }) } }],
    users: [{ name, user: { "client-certificate-data": b64(i.certPem), "client-key-data": b64(i.keyPem) } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
  };
}
