// The agent's answer to a LiveRequest (flotillactl diff): the member's objects as they are, read
// straight from its apiserver, without managedFields, and with Secret values redacted here, before
// the wire (DESIGN §7: the control plane never sees them). Bounded: at most MAX_RESOURCES per request.
import type { KubeObject } from "../../shared/api/types.ts";
import type { Discovery } from "../../shared/discovery.ts";
import type { LiveRequest, LiveResponse } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { redactSecret } from "../../shared/secret-redaction.ts";

const MAX_RESOURCES = 256;

export async function readLive(rest: KubeRest, discovery: Discovery, req: LiveRequest): Promise<LiveResponse> {
  if (req.resources.length > MAX_RESOURCES) return { requestId: req.requestId, objects: [], error: `at most ${MAX_RESOURCES} objects per request` };
  try {
    const objects = await Promise.all(
      req.resources.map(async (r) => {
        const res = await discovery.resourceFor(r.group ? `${r.group}/${r.version}` : r.version, r.kind);
        if (res === undefined) return Buffer.alloc(0);
        const obj = await rest.get<KubeObject>(objectPath(res, res.namespaced ? r.namespace || "default" : undefined, r.name)).catch((err: unknown) => {
          if (isKubeStatus(err, 404)) return undefined;
          throw err;
        });
        if (obj === undefined) return Buffer.alloc(0);
        const { managedFields: _, ...metadata } = obj.metadata as KubeObject["metadata"] & { managedFields?: unknown };
        return Buffer.from(JSON.stringify(redactSecret({ ...obj, metadata })));
      }),
    );
    return { requestId: req.requestId, objects, error: "" };
  } catch (err) {
    return { requestId: req.requestId, objects: [], error: err instanceof Error ? err.message : String(err) };
  }
}
