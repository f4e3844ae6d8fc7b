// What a `kubectl get` argument list asks for, for the forms e2e polls use; pure. A form this does
// not read (several kinds or names, other flags, a flag given twice) is left to kubectl itself.

/** One `kubectl get`: a resource as typed (short name, plural, Kind, `plural.group`), and where. */
export interface GetRequest {
  resource: string;
  name?: string;
  namespace?: string;
  allNamespaces?: boolean;
  labelSelector?: string;
  fieldSelector?: string;
  showManagedFields?: boolean;
}

type ValueFlag = "namespace" | "labelSelector" | "fieldSelector";

/** Flags that take a value: their spellings (pflag: `-n X`, `-n=X`, `-nX`, `--namespace X`, `--namespace=X`). */
const VALUE_FLAGS: { short?: string; long: string; field: ValueFlag }[] = [
  { short: "n", long: "namespace", field: "namespace" },
  { short: "l", long: "selector", field: "labelSelector" },
  { long: "field-selector", field: "fieldSelector" },
];

/** The request kubectl would make for `kubectl get ARGS -o json`, or undefined for a form not read here. */
export function parseGetArgs(args: readonly string[]): GetRequest | undefined {
  const positional: string[] = [];
  const values: Partial<Record<ValueFlag, string>> = {};
  let allNamespaces = false;
  let showManagedFields = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith("-")) {
      positional.push(arg);
      continue;
    }
    if (arg === "-A" || arg === "--all-namespaces") {
      if (allNamespaces) return undefined;
      allNamespaces = true;
      continue;
    }
    if (arg === "--show-managed-fields") {
      if (showManagedFields) return undefined;
      showManagedFields = true;
      continue;
    }
    const flag = valueFlag(arg);
    if (flag === undefined) return undefined;
    let value = flag.inline;
    if (value === undefined) {
      value = args[i + 1];
      i++;
    }
    if (value === undefined || value === "" || values[flag.field] !== undefined) return undefined;
    values[flag.field] = value;
  }
  if (positional.length === 0 || positional.length > 2) return undefined;
  let [resource, name] = positional as [string, string | undefined];
  if (resource.includes("/")) {
    if (name !== undefined) return undefined;
    const parts = resource.split("/");
    if (parts.length !== 2) return undefined;
    [resource, name] = parts as [string, string];
  }
  if (resource === "" || resource.includes(",") || name === "") return undefined;
  // kubectl refuses these: its own message is the answer.
  if (name !== undefined && (allNamespaces || values.labelSelector !== undefined || values.fieldSelector !== undefined)) return undefined;
  return {
    resource,
    ...(name !== undefined ? { name } : {}),
    ...(values.namespace !== undefined ? { namespace: values.namespace } : {}),
    ...(allNamespaces ? { allNamespaces } : {}),
    ...(values.labelSelector !== undefined ? { labelSelector: values.labelSelector } : {}),
    ...(values.fieldSelector !== undefined ? { fieldSelector: values.fieldSelector } : {}),
    ...(showManagedFields ? { showManagedFields } : {}),
  };
}

/** Which value flag arg is, and its value when written in the same argument. */
function valueFlag(arg: string): { field: ValueFlag; inline?: string } | undefined {
  for (const f of VALUE_FLAGS) {
    if (arg === `--${f.long}`) return { field: f.field };
    if (arg.startsWith(`--${f.long}=`)) return { field: f.field, inline: arg.slice(f.long.length + 3) };
    if (f.short === undefined) continue;
    if (arg === `-${f.short}`) return { field: f.field };
    if (arg.startsWith(`-${f.short}=`)) return { field: f.field, inline: arg.slice(3) };
    if (arg.startsWith(`-${f.short}`) && !arg.startsWith("--")) return { field: f.field, inline: arg.slice(2) };
  }
  return undefined;
}
