// flotillactl's "Fleet and clusters" commands: the members, their Works, bootstrap tokens,
// acceptance, unjoin and the deletion brake.
import type { ClusterInfo } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import { FlagError } from "../../shared/flags.ts";
import { acceptCluster } from "./accept.ts";
import { clusterFlag, descriptionFlag, forceFlag, kubeconfigFlag, outputFlag, ttlFlag, usesFlag } from "./command-flags.ts";
import type { Command } from "./command.ts";
import { call } from "./connection.ts";
import { decideHeldDeletions, listHeldDeletions } from "./deletions.ts";
import { age, bytes, structured, table } from "./format.ts";

const UINT32_MAX = 0xffff_ffff;

export const fleetCommands: Record<string, Command> = {
  "get clusters": {
    usage: "get clusters [-o table|json|yaml]",
    summary: "member clusters: Ready, connected, version, nodes, capacity, last heartbeat",
    flags: [outputFlag("table")],
    formats: ["table", "json", "yaml"],
    async run({ client, format, timeoutMs }) {
      const res = await call(client, client.listClusters, {}, timeoutMs);
      if (format !== "table") return structured(res.clusters, format);
      const now = Date.now();
      const cpu = (c: ClusterInfo) => `${c.resourceSummary?.allocated?.cpu ?? "0"}/${c.resourceSummary?.allocatable?.cpu ?? "-"}`;
      const memory = (c: ClusterInfo) => `${bytes(c.resourceSummary?.allocated?.memory ?? "0")}/${bytes(c.resourceSummary?.allocatable?.memory)}`;
      return table(
        ["name", "ready", "connected", "version", "nodes", "cpu", "memory", "heartbeat"],
        res.clusters.map((c) => [c.name, String(c.ready), String(c.connected), c.kubernetesVersion || "-", `${c.nodeSummary?.ready ?? 0}/${c.nodeSummary?.total ?? 0}`, cpu(c), memory(c), age(c.lastHeartbeatTime, now)]),
      );
    },
  },
  "get works": {
    usage: "get works --cluster X [-o table|json|yaml]",
    summary: "the Works the control plane holds for one cluster, with what its agent reported",
    flags: [{ ...clusterFlag, required: true }, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    async run({ client, flags, format, timeoutMs }) {
      const res = await call(client, client.listWorks, { cluster: String(flags.cluster) }, timeoutMs);
      if (format !== "table") return structured(res.works, format);
      const short = (h: string) => (h === "" ? "-" : h.slice(0, 12));
      return table(
        ["work", "hash", "observed", "applied", "available", "reason"],
        res.works.map((w) => [w.workKey, short(w.contentHash), short(w.observedHash), String(w.applied), String(w.available), w.reason || "-"]),
      );
    },
  },
  "token create": {
    usage: "token create [--ttl 24h] [--uses N] [--description TEXT]",
    summary: "a bootstrap token for registering members (printed once, on stdout)",
    flags: [ttlFlag, usesFlag, descriptionFlag, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    async run({ client, flags, format, timeoutMs, warn }) {
      const ttlSeconds = Math.ceil(Number(flags.ttl) / 1000);
      if (ttlSeconds <= 0) throw new FlagError("--ttl must be positive");
      const uses = Number(flags.uses ?? 0);
      if (uses < 0 || uses > UINT32_MAX) throw new FlagError("--uses must be 0 (any number) or more");
      // The control plane judges the TTL; a value past uint32 is sent as the largest, never wrapped to a small one.
      const req = { ttlSeconds: Math.min(ttlSeconds, UINT32_MAX), uses, description: String(flags.description ?? "") };
      const res = await call(client, client.createToken, req, timeoutMs);
      if (format !== "table") return structured(res, format);
      const good = uses === 0 ? "" : ` for ${uses} registration${uses === 1 ? "" : "s"}`;
      warn(`# token ${res.id}, valid until ${res.expires}${good}; give it to the agent chart (bootstrapToken) or --bootstrap-token`);
      return res.token;
    },
  },
  "token list": {
    usage: "token list [-o table|json|yaml]",
    summary: "bootstrap tokens: id, expiry, description (never the secret)",
    flags: [outputFlag("table")],
    formats: ["table", "json", "yaml"],
    async run({ client, format, timeoutMs }) {
      const res = await call(client, client.listTokens, {}, timeoutMs);
      if (format !== "table") return structured(res.tokens, format);
      const uses = (t: { usesAllowed: number; uses: number }) => (t.usesAllowed === 0 ? "-" : `${t.uses}/${t.usesAllowed}`);
      return table(["id", "expires", "expired", "uses", "description"], res.tokens.map((t) => [t.id, t.expires, String(t.expired), uses(t), t.description || "-"]));
    },
  },
  "token delete": {
    usage: "token delete <id>",
    positionals: 1,
    summary: "deletes a bootstrap token: no new member can register with it",
    flags: [],
    formats: ["table"],
    async run({ client, args, timeoutMs }) {
      await call(client, client.deleteToken, { id: String(args[0]) }, timeoutMs);
      return `token ${args[0]} deleted`;
    },
  },
  "deletions list": {
    usage: "deletions list [--cluster X] [--kubeconfig FILE] [-o table|json|yaml]",
    summary: "the deletions the blast-radius brake holds (control plane --deletion-budget-*), per cluster and template",
    flags: [clusterFlag, kubeconfigFlag, outputFlag("table")],
    formats: ["table", "json", "yaml"],
    direct: true,
    async run({ flags, format, timeoutMs }) {
      const held = await listHeldDeletions(flags, typeof flags.cluster === "string" ? flags.cluster : undefined, timeoutMs);
      if (format !== "table") return structured(held, format);
      if (held.length === 0) return "no deletions are held";
      return table(["cluster", "kind", "namespace", "name", "binding"], held.map((h) => [h.cluster, h.kind, h.namespace ?? "-", h.name, h.binding]));
    },
  },
  "deletions approve": {
    usage: "deletions approve <cluster> [--kubeconfig FILE]",
    positionals: 1,
    summary: "sends the deletions held for a cluster (its window starts again)",
    flags: [kubeconfigFlag],
    formats: ["table"],
    direct: true,
    run: ({ args, flags, timeoutMs }) => decideHeldDeletions(flags, String(args[0]), "approve", timeoutMs),
  },
  "deletions reject": {
    usage: "deletions reject <cluster> [--kubeconfig FILE]",
    positionals: 1,
    summary: "keeps the objects whose deletion is held for a cluster: they stay in the member, released from Flotilla",
    flags: [kubeconfigFlag],
    formats: ["table"],
    direct: true,
    run: ({ args, flags, timeoutMs }) => decideHeldDeletions(flags, String(args[0]), "reject", timeoutMs),
  },
  accept: {
    usage: "accept <cluster> [--kubeconfig FILE]",
    positionals: 1,
    summary: "accept a new member cluster: with --require-acceptance it receives nothing until then (sets spec.hubAcceptsClient in the control cluster)",
    flags: [kubeconfigFlag],
    formats: ["table"],
    direct: true,
    run: ({ args, flags, timeoutMs }) => acceptCluster(flags, String(args[0]), timeoutMs),
  },
  unjoin: {
    usage: "unjoin <cluster> [--force]",
    positionals: 1,
    summary: "removes a member: its agent removes what Flotilla applied, then its Cluster and certificate are gone; --force does not wait (for a cluster that will not come back)",
    flags: [forceFlag],
    formats: ["table"],
    async run({ client, args, flags, timeoutMs }) {
      const res = await call(client, client.unjoin, { cluster: String(args[0]), force: flags.force === true }, timeoutMs);
      return res.message;
    },
  },
};
