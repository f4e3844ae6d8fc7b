// A WorkUpsert encoded once per distinct Work. Clusters whose rendered Work is identical share one
// manifests array (rendering/render-works.ts); without this grpc-js would encode the same message
// again for every agent stream it is written to. The session hands every stream the same message
// object, carrying its bytes, and the service's serializer returns them.
import { AgentHubService, ControlMessage, type WorkUpsert } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { counter } from "../../shared/metrics.ts";

/** Where a message keeps its encoding: a symbol, not enumerable, so nothing that walks the message sees it. */
const ENCODED = Symbol("encoded ControlMessage");

type CarriesEncoding = ControlMessage & { readonly [ENCODED]?: Buffer };

const encodingsTotal = counter("flotilla_hub_work_encodings_total", "WorkUpserts the hub encoded to protobuf: one per distinct Work, however many agent streams it is written to.");
const writtenTotal = counter("flotilla_hub_work_upserts_written_total", "WorkUpserts the hub wrote to agent streams, over every cluster; those beyond flotilla_hub_work_encodings_total cost no encoding.");

const counts = { encodings: 0, written: 0 };

/** This process's WorkUpserts encoded, and written to agent streams, since it started (as the two metrics). */
export function workUpsertCounts(): { encodings: number; written: number } {
  return { ...counts };
}

/**
 * A Work's manifests array → its other fields → the message with its bytes. Weak on the array:
 * an entry lives as long as some cluster's Work holds that array, and no longer.
 */
const byManifests = new WeakMap<Buffer[], Map<string, ControlMessage>>();

/**
 * The WorkUpsert message for a Work: encoded on the first call, and the same object, with the same
 * bytes, for every later call with the same manifests array and the same other fields.
 */
export function workUpsertMessage(upsert: WorkUpsert): ControlMessage {
  let byFields = byManifests.get(upsert.manifests);
  if (byFields === undefined) {
    byFields = new Map();
    byManifests.set(upsert.manifests, byFields);
  }
  const fields = JSON.stringify([upsert.workKey, upsert.contentHash, upsert.conflictResolution, upsert.preserveResourcesOnDeletion]);
  let message = byFields.get(fields);
  if (message === undefined) {
    message = { kind: { $case: "workUpsert", value: upsert } };
    Object.defineProperty(message, ENCODED, { value: encode(message) });
    byFields.set(fields, message);
  }
  return message;
}

/** The bytes of a ControlMessage on the wire: those it carries from workUpsertMessage, else encoded now. */
export function serializeControlMessage(message: ControlMessage): Buffer {
  if (message.kind?.$case === "workUpsert") {
    counts.written++;
    writtenTotal.inc();
  }
  return (message as CarriesEncoding)[ENCODED] ?? encode(message);
}

function encode(message: ControlMessage): Buffer {
  if (message.kind?.$case === "workUpsert") {
    counts.encodings++;
    encodingsTotal.inc();
  }
  // As the generated serializer does, so an agent decodes exactly what it did before.
  return Buffer.from(ControlMessage.encode(message).finish());
}

/** The AgentHub service definition the hub registers: the generated one, with serializeControlMessage for what it sends. */
export const AgentHubServiceEncodedOnce = {
  ...AgentHubService,
  connect: { ...AgentHubService.connect, responseSerialize: serializeControlMessage },
} as const;
