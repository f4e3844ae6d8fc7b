// What `kubectl get -o json` prints for what the apiserver answered; pure. kubectl drops
// metadata.managedFields unless --show-managed-fields, and prints a list as a kind List whose
// items carry their apiVersion and kind (a typed list's items come without them).

type Obj = Record<string, unknown>;

/** One page of a list answer, as the apiserver sends it. */
export interface ListPage {
  apiVersion?: string;
  kind?: string;
  items?: Obj[] | null;
}

/** One object as kubectl prints it. */
export function printedObject(obj: Obj, showManagedFields = false): Obj {
  const metadata = obj.metadata as Obj | undefined;
  if (showManagedFields || metadata === undefined || !("managedFields" in metadata)) return obj;
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...obj, metadata: rest };
}

/** A list's pages (one per continue token) as kubectl prints them. */
export function printedList(pages: readonly ListPage[], showManagedFields = false): Obj {
  const items: Obj[] = [];
  for (const page of pages) {
    // As client-go's unstructured list decoding: an item with neither gets the list's.
    const kind = (page.kind ?? "").replace(/List$/, "");
    for (const item of page.items ?? []) {
      const typed = item.apiVersion === undefined && item.kind === undefined ? { ...item, apiVersion: page.apiVersion, kind } : item;
      items.push(printedObject(typed, showManagedFields));
    }
  }
  return { apiVersion: "v1", items, kind: "List", metadata: { resourceVersion: "" } };
}
