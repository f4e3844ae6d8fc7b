// `flotillactl get <resource> [name]` for anything but Flotilla's own kinds: read from every
// selected member through the member API and shown as one table with a CLUSTER column.
import type { FlagValues } from "../../shared/flags.ts";
import { FlagError } from "../../shared/flags.ts";
import type { CommandContext } from "./command.ts";
import { structured, table } from "./format.ts";
import { fanOut, openMembers, TABLE_ACCEPT } from "./member-api.ts";
import { MemberResources, readPath } from "./member-discovery.ts";
import { type KubeTable, listItems, mergeObjects, mergeTables, noneFound } from "./member-table.ts";

/** `get <resource> [name]` or `get <resource>/<name>`: the resource name and the object's, if one. */
export function getTarget(args: readonly string[]): { resource: string; name: string | undefined } {
  const [first = "", second] = args;
  const slash = first.indexOf("/");
  if (slash > 0 && second === undefined) return { resource: first.slice(0, slash), name: first.slice(slash + 1) };
  return { resource: first, name: second };
}

/** The namespace a read is in (undefined: every one), refusing -A with a name as kubectl does. */
function namespaceOf(flags: FlagValues, name: string | undefined): string | undefined {
  if (flags["all-namespaces"] !== true) return String(flags.namespace ?? "default");
  if (name !== undefined) throw new FlagError("a resource cannot be retrieved by name across all namespaces");
  return undefined;
}

export async function runMemberGet({ client, credentials, args, flags, format, timeoutMs, warn }: CommandContext): Promise<string> {
  const { resource, name } = getTarget(args);
  const namespace = namespaceOf(flags, name);
  const query = { labelSelector: String(flags.selector ?? ""), fieldSelector: String(flags["field-selector"] ?? "") };
  const { api, clusters } = await openMembers(client, credentials, String(flags.clusters ?? "all"), timeoutMs);
  try {
    const resources = new MemberResources(api);
    const answers = await fanOut(
      clusters,
      async (cluster) => {
        const info = await resources.resolve(cluster, resource);
        const path = readPath(info, namespace, name, name === undefined ? query : {});
        return { namespaced: info.namespaced, body: await api.get<Record<string, unknown>>(cluster, path, format === "table" ? TABLE_ACCEPT : "application/json") };
      },
      warn,
    );
    if (format !== "table") {
      const objects = answers.map(({ key: cluster, value }) => ({ cluster, objects: name === undefined ? listItems(value.body) : [value.body] }));
      const merged = mergeObjects(objects);
      const items = merged.items as unknown[];
      return structured(name !== undefined && items.length === 1 ? items[0] : merged, format);
    }
    const namespaced = answers.some((a) => a.value.namespaced);
    const merged = mergeTables(
      answers.map(({ key: cluster, value }) => ({ cluster, table: value.body as KubeTable })),
      { wide: flags.output === "wide", namespaceColumn: namespaced && namespace === undefined },
    );
    if (merged.rows.length === 0) {
      warn(noneFound(namespaced ? namespace : undefined));
      return "";
    }
    return table(merged.headers, merged.rows);
  } finally {
    api.close();
  }
}
