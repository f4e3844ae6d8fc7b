// Clusterset DNS (KEP-1645, issue 40) from CoreDNS's standard plugins: a member's imports are
// Services named `clusterset-<svc>` (DERIVED_SERVICE_PREFIX) with Flotilla's EndpointSlices, so
// `rewrite` maps `<svc>.<ns>.svc.clusterset.local` onto `clusterset-<svc>.<ns>.svc.cluster.local`
// and the `kubernetes` plugin answers it. docs/guides/mcs.md quotes CLUSTERSET_COREFILE_STANZA;
// test/env/clusterset-dns.test.ts runs the same text against a real kube-apiserver.
import { DERIVED_SERVICE_PREFIX } from "./mcs.ts";

/** The zone of multi-cluster names (KEP-1645's default, and the conformance suite's `-dns-domain`). */
export const CLUSTERSET_ZONE = "clusterset.local";

/**
 * The longest Service name the rewrite reaches: a DNS label holds at most 63 characters, and the
 * derived Service's name is `clusterset-` (11) plus the Service's. A longer name's derived Service
 * gets a hashed name, which a regex cannot compute.
 */
export const CLUSTERSET_DNS_MAX_SERVICE_NAME = 63 - DERIVED_SERVICE_PREFIX.length;

/**
 * The one rewrite rule: `<svc>.<ns>.svc.clusterset.local.` (any record type) is asked as
 * `clusterset-<svc>.<ns>.svc.cluster.local.`, and `answer auto` puts the asked name back into the
 * answer. CoreDNS matches the lower-cased name, so `[a-z0-9-]` covers every Service name.
 */
export function clustersetRewrite(clusterDomain = "cluster.local"): string {
  const max = CLUSTERSET_DNS_MAX_SERVICE_NAME;
  const zone = CLUSTERSET_ZONE.replaceAll(".", "\\.");
  return (
    `rewrite stop name regex ^([a-z0-9-]{1,${max}})\\.([a-z0-9-]{1,63})\\.svc\\.${zone}\\.$ ` +
    `${DERIVED_SERVICE_PREFIX}{1}.{2}.svc.${clusterDomain}. answer auto`
  );
}

export interface ClustersetCorefileOptions {
  /** Default 53. */
  port?: number;
  /** An address for `bind` (tests: 127.0.0.1); none binds every interface, as CoreDNS does. */
  bind?: string;
  /** A kubeconfig for the `kubernetes` plugin; none connects in-cluster (CoreDNS's ServiceAccount). */
  kubeconfig?: string;
  /** The member's cluster domain (default cluster.local). */
  clusterDomain?: string;
}

/**
 * A Corefile server block serving `clusterset.local` from the member's derived Services. It sits
 * beside the cluster's `.:53` block, so no clusterset name reaches that block's `forward`.
 */
export function clustersetCorefile(opts: ClustersetCorefileOptions = {}): string {
  const lines = [`${CLUSTERSET_ZONE}:${opts.port ?? 53} {`];
  if (opts.bind !== undefined) lines.push(`    bind ${opts.bind}`);
  lines.push("    errors", `    ${clustersetRewrite(opts.clusterDomain)}`);
  const domain = opts.clusterDomain ?? "cluster.local";
  if (opts.kubeconfig === undefined) lines.push(`    kubernetes ${domain}`);
  else lines.push(`    kubernetes ${domain} {`, `        kubeconfig ${opts.kubeconfig}`, "    }");
  lines.push("}", "");
  return lines.join("\n");
}

/** What a cluster admin adds to each member's Corefile (docs/guides/mcs.md quotes it verbatim). */
export const CLUSTERSET_COREFILE_STANZA = clustersetCorefile();
