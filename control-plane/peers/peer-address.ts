// Where the other replicas reach this one (--peer-address), pure: the flag as given; else the
// gRPC listener's own host when it names one; else the pod's IP (POD_IP, from the downward API)
// with the listener's port. A listener on every interface without POD_IP gives none: the leader
// cannot reach this replica, and its clusters count as missing for the FederatedHPA.

/** The address to advertise, or undefined for none; an Error for a flag that is no host:port. */
export function peerAddress(flag: string | undefined, grpcListen: string, podIp: string | undefined): string | undefined | Error {
  if (flag !== undefined && flag !== "") return hostPort(flag) === undefined ? new Error(`--peer-address ${JSON.stringify(flag)} is not host:port`) : flag;
  const listen = hostPort(grpcListen);
  if (listen === undefined || listen.port === "0") return undefined;
  const anyHost = listen.host === "" || listen.host === "0.0.0.0" || listen.host === "::" || listen.host === "[::]";
  if (!anyHost) return `${listen.host}:${listen.port}`;
  if (podIp === undefined || podIp === "") return undefined;
  return podIp.includes(":") ? `[${podIp}]:${listen.port}` : `${podIp}:${listen.port}`;
}

function hostPort(s: string): { host: string; port: string } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s]*):(\d{1,5})$/.exec(s);
  return m === null ? undefined : { host: m[1] ?? "", port: m[2] ?? "" };
}
