// bench:hub-floor's one method: a bidirectional stream of raw bytes (no protobuf), as a hub's agent stream.
import type { ServiceDefinition } from "@grpc/grpc-js";

const raw = (b: Buffer) => b;
export const FLOOR_SERVICE: ServiceDefinition = {
  stream: { path: "/flotilla.bench.Floor/Stream", requestStream: true, responseStream: true, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw },
};
