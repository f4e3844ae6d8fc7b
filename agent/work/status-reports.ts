// Each Work's latest status, and whether the hub has heard it: a status is sent only when its
// digest changed (or after a reconnect, when the hub has none).
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { statusDigest } from "../status/work-status.ts";

export class StatusReports {
  private readonly statuses = new Map<string, WorkStatus>();
  /** The digest of each Work's last reported status (a digest: the statuses themselves are kept once, in statuses). */
  private readonly sent = new Map<string, string>();
  private readonly report: (key: string) => void;

  constructor(report: (key: string) => void) {
    this.report = report;
  }

  /** Keeps a Work's status, and tells the stream when it differs from the last one sent. */
  publish(status: WorkStatus): void {
    const digest = statusDigest(status);
    this.statuses.set(status.workKey, status);
    if (this.sent.get(status.workKey) === digest) return;
    this.sent.set(status.workKey, digest);
    this.report(status.workKey);
  }

  get(key: string): WorkStatus | undefined {
    return this.statuses.get(key);
  }


  /** Tells the stream every status again (after a reconnect the hub has none), and forgets what was sent. */
  resendAll(): void {
    this.sent.clear();
    for (const key of this.statuses.keys()) this.report(key);
  }
}
