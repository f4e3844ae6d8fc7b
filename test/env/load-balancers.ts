// A member's "cloud": gives every Service of type LoadBalancer, and every Ingress, an address in
// status.loadBalancer.ingress, as a cloud's service and ingress controllers do. Addresses come
// from the member's own loopback block (address-pool.ts), stay with the object while it lives
// and are freed when it goes. It runs in the test process (no binary, no image), one watch per
// kind, and never dials the addresses it hands out.
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { Controller } from "../../shared/controller.ts";
import { Informer } from "../../shared/informer.ts";
import { isKubeStatus, KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import { AddressPool } from "./address-pool.ts";

export type LoadBalancedKind = "Service" | "Ingress";

const resources: Record<LoadBalancedKind, ResourceInfo> = {
  Service: { apiVersion: "v1", kind: "Service", plural: "services", namespaced: true },
  Ingress: { apiVersion: "networking.k8s.io/v1", kind: "Ingress", plural: "ingresses", namespaced: true },
};

/** The fields this controller reads of a Service or Ingress. */
export interface LoadBalanced {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; deletionTimestamp?: unknown };
  spec?: { type?: string; loadBalancerClass?: string };
  status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } };
}

/**
 * Whether a cloud gives the object a load balancer: every Ingress (the test env has one ingress
 * class), and a Service of type LoadBalancer that names no other implementation
 * (spec.loadBalancerClass, which the cloud's own controller also leaves alone).
 */
export function wantsAddress(kind: LoadBalancedKind, obj: LoadBalanced): boolean {
  if (obj.metadata?.deletionTimestamp !== undefined) return false;
  if (kind === "Ingress") return true;
  return obj.spec?.type === "LoadBalancer" && obj.spec.loadBalancerClass === undefined;
}

/** The addresses the object reports now. */
export function reportedAddresses(obj: LoadBalanced): string[] {
  return (obj.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? i.hostname ?? "");
}

/** A member's load-balancer controller. */
export interface LoadBalancers {
  /** The member's block, e.g. 127.0.101.0/24. */
  cidr: string;
  /** The address the controller gave the object, if it holds one. */
  addressOf(namespace: string, name: string, kind?: LoadBalancedKind): string | undefined;
  /**
   * Moves the object's load balancer to a new address of the block, as a cloud re-creating it
   * would, and writes it to the object's status; resolves with the new address once written.
   * Rejects when the object holds no address (not a load balancer, or not seen yet).
   */
  reassign(namespace: string, name: string, kind?: LoadBalancedKind): Promise<string>;
  stop(): Promise<void>;
}

const keyOf = (kind: LoadBalancedKind, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

/** Starts watching Services and Ingresses of the cluster; resolves once both caches are synced. */
export async function startLoadBalancers(opts: { kc: KubeConfig; block: number; log: Logger }): Promise<LoadBalancers> {
  const pool = new AddressPool(opts.block);
  const rest = new KubeRest(opts.kc, { userAgent: "flotilla-test-env-load-balancers" });
  const log = opts.log.child({ cidr: pool.cidr });
  const informers = {
    Service: new Informer<LoadBalanced>({ kc: opts.kc, rest, resource: resources.Service, log }),
    Ingress: new Informer<LoadBalanced>({ kc: opts.kc, rest, resource: resources.Ingress, log }),
  };

  const writeStatus = async (kind: LoadBalancedKind, namespace: string, name: string, addresses: string[]) => {
    const path = objectPath(resources[kind], namespace, name, "status");
    try {
      await rest.mergePatch(path, { status: { loadBalancer: { ingress: addresses.map((ip) => ({ ip })) } } });
    } catch (err) {
      // Deleted meanwhile: its delete event releases the address.
      if (!isKubeStatus(err, 404)) throw err;
    }
  };

  const reconcile = async (key: string) => {
    const [kind, namespace, name] = key.split("/") as [LoadBalancedKind, string, string];
    const obj = informers[kind].get(name, namespace);
    const reported = obj === undefined ? [] : reportedAddresses(obj);
    if (obj === undefined || !wantsAddress(kind, obj)) {
      const gave = pool.addressOf(key) !== undefined;
      pool.release(key);
      // Stopped being a load balancer (e.g. type changed to ClusterIP): the cloud takes back the
      // address it gave. An address it never gave (another loadBalancerClass's) is not its own.
      if (gave && obj !== undefined && obj.metadata?.deletionTimestamp === undefined && reported.length > 0) {
        await writeStatus(kind, namespace, name, []);
      }
      return undefined;
    }
    const address = pool.assign(key, reported.length === 1 ? reported[0] : undefined);
    if (reported.length !== 1 || reported[0] !== address) await writeStatus(kind, namespace, name, [address]);
    return undefined;
  };
  const controller = new Controller({ name: "test-env-load-balancers", reconcile, workers: 1, log });

  for (const kind of ["Service", "Ingress"] as const) {
    const enqueue = (obj: LoadBalanced) => controller.enqueue(keyOf(kind, obj.metadata?.namespace ?? "", obj.metadata?.name ?? ""));
    informers[kind].on({ add: enqueue, update: enqueue, delete: enqueue });
  }
  try {
    await Promise.all([informers.Service.start(), informers.Ingress.start()]);
  } catch (err) {
    informers.Service.stop();
    informers.Ingress.stop();
    rest.close();
    throw err;
  }
  controller.start();

  return {
    cidr: pool.cidr,
    addressOf: (namespace, name, kind = "Service") => pool.addressOf(keyOf(kind, namespace, name)),
    reassign: async (namespace, name, kind = "Service") => {
      const key = keyOf(kind, namespace, name);
      if (pool.addressOf(key) === undefined) throw new Error(`${key} holds no load-balancer address to move`);
      const address = pool.reassign(key);
      await writeStatus(kind, namespace, name, [address]);
      return address;
    },
    stop: async () => {
      informers.Service.stop();
      informers.Ingress.stop();
      await controller.stop();
      rest.close();
    },
  };
}
