// Waiting for the control plane to go quiet after a burst, so that trailing status writes are
// counted (bench:propagate) or do not fall inside a measurement (bench:latency).
import type { Flotilla } from "../env/flotilla.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the control plane's status write counters hold still for 3 s (at most 60 s). */
export async function settleControlPlane(flotilla: Flotilla): Promise<void> {
  // A replica being restarted answers nothing: that is no stillness (NaN never equals itself).
  const read = async () => {
    try {
      const m = await flotilla.controlPlaneMetrics();
      return (m.flotilla_binding_status_writes_total ?? 0) + (m.flotilla_template_status_writes_total ?? 0);
    } catch {
      return Number.NaN;
    }
  };
  await untilStill(read);
}

/** Waits until `read` answers the same for 3 s (at most 60 s); NaN never counts as the same. */
export async function untilStill(read: () => Promise<number>): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last = await read();
  let stillSince = Date.now();
  while (Date.now() < deadline && Date.now() - stillSince < 3000) {
    await sleep(500);
    const now = await read();
    if (now !== last) [last, stillSince] = [now, Date.now()];
  }
}
