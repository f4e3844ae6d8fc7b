// fast-check arbitraries of every message an agent can send, from plausible to garbage and
// oversized: for the property tests of the hub's checks and for the hostile-agent e2e test.
import fc from "fast-check";
import { type AgentMessage, Health, type Heartbeat, type Hello, type ManifestStatus, type WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";

/** Short or very long, plain or unicode text; sometimes a plausible work key. */
export const text = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: "grapheme", maxLength: 40 }),
    fc.constantFrom("apps/v1/Deployment/default/web", "core/v1/ConfigMap/-/x", "", "-", "/////", "../../etc"),
    fc.integer({ min: 0, max: 300_000 }).map((n) => "x".repeat(n)),
  );

const bytes = (): fc.Arbitrary<Buffer> =>
  fc.oneof(fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)), fc.constantFrom(Buffer.from('{"replicas":3}'), Buffer.from("not json")), fc.integer({ min: 0, max: 200_000 }).map((n) => Buffer.alloc(n)));

const quantity = (): fc.Arbitrary<string> =>
  fc.oneof(fc.constantFrom("4", "8Gi", "500m", "-1", "1e400", "NaN", "Infinity", "1e19", "", "12Qi", "0.5"), fc.string({ maxLength: 12 }), fc.double().map(String));

export const manifestStatus = (): fc.Arbitrary<ManifestStatus> =>
  fc.record({
    resource: fc.option(fc.record({ group: text(), version: text(), kind: text(), namespace: text(), name: text() }), { nil: undefined }),
    applied: fc.boolean(),
    health: fc.constantFrom(Health.HEALTH_UNSPECIFIED, Health.HEALTH_HEALTHY, Health.HEALTH_PROGRESSING, Health.HEALTH_UNHEALTHY, Health.HEALTH_UNKNOWN),
    reason: text(),
    message: text(),
    status: bytes(),
  });

/** keys: work keys worth trying (e.g. another cluster's Works). */
export const workStatus = (keys: string[] = []): fc.Arbitrary<WorkStatus> =>
  fc.record({
    workKey: keys.length > 0 ? fc.oneof(fc.constantFrom(...keys), text()) : text(),
    observedHash: text(),
    applied: fc.boolean(),
    available: fc.boolean(),
    reason: fc.oneof(fc.constantFrom("WaitingForRemoval", "DeletionFailed", "UpdateFailed", ""), text()),
    message: text(),
    manifests: fc.array(manifestStatus(), { maxLength: 4 }),
    deleted: fc.boolean(),
  });

export const heartbeat = (): fc.Arbitrary<Heartbeat> =>
  fc.record({
    kubernetesVersion: text(),
    agentVersion: text(),
    nodeSummary: fc.option(fc.record({ total: fc.nat(), ready: fc.nat() }), { nil: undefined }),
    resourceSummary: fc.option(fc.record({ allocatable: fc.dictionary(text(), quantity(), { maxKeys: 8 }), allocated: fc.dictionary(text(), quantity(), { maxKeys: 8 }) }), { nil: undefined }),
    apiEnablements: fc.array(text(), { maxLength: 8 }),
  });

export const hello = (cluster: fc.Arbitrary<string> = text()): fc.Arbitrary<Hello> =>
  fc.record({ clusterName: cluster, agentVersion: text(), workHashes: fc.dictionary(text(), text(), { maxKeys: 8 }), earlierRegistrationWorks: fc.constant([]), earlierRegistrationBits: fc.constant(Buffer.alloc(0)), needsContents: fc.boolean(), protocolVersion: fc.nat(), features: fc.array(text(), { maxLength: 8 }) });

/** Any agent message, the empty one included. */
export const agentMessage = (keys: string[] = []): fc.Arbitrary<AgentMessage> =>
  fc.oneof(
    workStatus(keys).map((value): AgentMessage => ({ kind: { $case: "workStatus", value } })),
    heartbeat().map((value): AgentMessage => ({ kind: { $case: "heartbeat", value } })),
    hello().map((value): AgentMessage => ({ kind: { $case: "hello", value } })),
    fc.array(text(), { maxLength: 4 }).map((workKeys): AgentMessage => ({ kind: { $case: "contentRequest", value: { workKeys } } })),
    fc.record({ requestId: text(), objects: fc.array(bytes(), { maxLength: 3 }), error: text() }).map((value): AgentMessage => ({ kind: { $case: "liveResponse", value } })),
    fc.constant<AgentMessage>({ kind: undefined }),
  );
