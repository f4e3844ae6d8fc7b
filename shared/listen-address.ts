// host:port listen addresses of the control plane's HTTPS listeners, and the URL a caller on this
// machine reaches one at. Pure.

/** The host and port of a listen address; `flag` names it in the error. */
export function splitHostPort(listen: string, flag: string): { host: string; port: number } {
  const i = listen.lastIndexOf(":");
  const port = Number(listen.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${flag} ${JSON.stringify(listen)} is not host:port`);
  return { host: listen.slice(0, i).replace(/^\[|\]$/g, ""), port };
}

/** https://host:port of a listen address and the port it got; an address on every interface is reached on 127.0.0.1. */
export function listenUrl(listen: string, port: number): string {
  const { host } = splitHostPort(listen, "the listen address");
  const h = host === "" || host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return `https://${h}:${port}`;
}
