// The fleet's interpreter customizations in the agent (issue 21): the set the hub sends (Retain,
// ReflectStatus, InterpretHealth), compiled by the Lua runtime, kept in a ConfigMap of the state
// namespace with its hash so that a restarted agent states the hash in its Hello and is not sent
// an unchanged set again. The Lua runtime (fengari, in a chunk of the agent's bundle of its own) is
// loaded and created only when the set has a customization: an agent whose fleet has none never
// parses it (issue 42).
import type { Logger } from "pino";
import type { KubeObject } from "../../shared/api/types.ts";
import { type AgentCustomizationSet, decodeAgentSet, EMPTY_AGENT_SET } from "../../shared/interpreter/agent-customizations.ts";
import { changedKinds, customizationDigests, interpretersByKind } from "../../shared/interpreter/customization-set.ts";
import { type KindInterpreter, kindKey } from "../../shared/interpreter/interpreter.ts";
import type { LuaInterpreterRuntime } from "../../shared/interpreter/lua/runtime.ts";
import { isKubeStatus, type KubeRest } from "../../shared/kube-rest.ts";

const FIELD_MANAGER = "flotilla-agent";

export class AgentCustomizations {
  private set: AgentCustomizationSet = EMPTY_AGENT_SET;
  private byKind: ReadonlyMap<string, KindInterpreter> = new Map();
  private runtime: Promise<LuaInterpreterRuntime> | undefined;
  private using: Promise<void> = Promise.resolve();
  private readonly rest: KubeRest;
  private readonly path: string;
  private readonly namespace: string;
  private readonly name: string;
  private readonly log: Logger;
  /** Sets received from the hub and taken (for tests and metrics). */
  received = 0;

  constructor(opts: { rest: KubeRest; namespace: string; name?: string; log: Logger }) {
    this.rest = opts.rest;
    this.namespace = opts.namespace;
    this.name = opts.name ?? "flotilla-agent-customizations";
    this.path = `/api/v1/namespaces/${opts.namespace}/configmaps/${this.name}`;
    this.log = opts.log.child({ component: "interpreter" });
  }

  /** The hash of the set held ("" for none): what the Hello states. */
  get hash(): string {
    return this.set.hash;
  }

  /** How many customizations are held. */
  get size(): number {
    return this.set.customizations.length;
  }

  /** The customized operations of an object's kind, if the fleet customizes it. */
  for(obj: Pick<KubeObject, "apiVersion" | "kind">): KindInterpreter | undefined {
    return this.byKind.get(kindKey(obj.apiVersion, obj.kind));
  }

  /** Reads the kept set (a missing or unreadable one is no set: the hub sends it again). */
  async load(): Promise<void> {
    let cm: { data?: Record<string, string> };
    try {
      cm = await this.rest.get(this.path);
    } catch (err) {
      if (isKubeStatus(err, 404)) return;
      throw err;
    }
    try {
      const items = JSON.parse(cm.data?.customizations ?? "[]") as unknown[];
      const decoded = decodeAgentSet({ contentHash: cm.data?.hash ?? "", customizations: items.map((c) => Buffer.from(JSON.stringify(c))) });
      if (!decoded.ok) throw new Error(decoded.reason);
      await this.use(decoded.set);
      this.log.info({ customizations: this.size, hash: this.hash }, "interpreter customizations loaded");
    } catch (err) {
      this.log.warn({ err: String(err) }, "ignoring unreadable kept interpreter customizations; the hub sends them again");
    }
  }

  /**
   * Takes the set the hub sent, keeps it, and returns the kinds whose customizations changed (their
   * Works are reported again). A malformed set is refused: the one held stays, and its hash tells
   * the hub at the next Hello.
   */
  async receive(msg: { contentHash: string; customizations: readonly Uint8Array[] }): Promise<string[]> {
    const decoded = decodeAgentSet(msg);
    if (!decoded.ok) {
      this.log.error({ reason: decoded.reason }, "refusing the interpreter customizations the hub sent; keeping the ones held");
      return [];
    }
    const before = this.set;
    await this.use(decoded.set);
    this.received++;
    this.log.info({ customizations: this.size, hash: this.hash }, "interpreter customizations received");
    try {
      await this.rest.apply(
        this.path,
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: this.name, namespace: this.namespace }, data: { hash: decoded.set.hash, customizations: JSON.stringify(decoded.set.customizations) } },
        FIELD_MANAGER,
        true,
      );
    } catch (err) {
      // Not kept: after a restart the Hello states no hash and the hub sends the set again.
      this.log.warn({ err: String(err) }, "keeping the interpreter customizations failed");
    }
    return changedKinds(customizationDigests(before.customizations), customizationDigests(decoded.set.customizations));
  }

  /**
   * Holds `set` with its interpreters, once the runtime they need is loaded. Sets are taken in the
   * order received, however long the first load takes.
   */
  private use(set: AgentCustomizationSet): Promise<void> {
    const taken = this.using.then(() => this.take(set));
    this.using = taken.catch(() => undefined);
    return taken;
  }

  private async take(set: AgentCustomizationSet): Promise<void> {
    if (set.customizations.length > 0) {
      this.runtime ??= import("../../shared/interpreter/lua/runtime.ts").then(
        (m) => new m.LuaInterpreterRuntime({ logger: this.log }),
        (err: unknown) => {
          this.runtime = undefined;
          throw err;
        },
      );
    }
    const runtime = await this.runtime;
    this.set = set;
    this.byKind = runtime === undefined ? new Map() : interpretersByKind(set.customizations, (rules) => runtime.interpreter(rules));
  }
}
