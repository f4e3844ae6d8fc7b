// One member's pods of a workload and the recent events about them (issue 41), read inside the
// member as the signed-in user when shown and again every REFRESH_MS while on screen.
import { html, LitElement } from "lit";
import type { MemberWorkload } from "../member-views.ts";
import { getJson, podQuery } from "./api.ts";
import { ago, badge } from "./live-element.ts";

/** How often an open topology reads its members again. */
const REFRESH_MS = 10_000;

export class MemberWorkloadView extends LitElement {
  static override properties = { cluster: {}, ref: { attribute: false }, data: { state: true }, problem: { state: true } };
  declare cluster: string;
  declare ref: { apiVersion: string; kind: string; namespace: string; name: string };
  declare data: MemberWorkload | undefined;
  declare problem: string;
  private timer: number | undefined;
  private loading = false;

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.problem = "";
    void this.load();
    this.timer = window.setInterval(() => void this.load(), REFRESH_MS);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.clearInterval(this.timer);
  }

  private async load(): Promise<void> {
    if (this.loading || this.cluster === undefined) return;
    this.loading = true;
    try {
      const q = new URLSearchParams({ cluster: this.cluster, ...this.ref });
      this.data = await getJson<MemberWorkload>(`/api/member/workload?${q.toString()}`);
      this.problem = "";
    } catch (err) {
      this.problem = (err as Error).message;
    } finally {
      this.loading = false;
    }
  }

  protected override render() {
    const d = this.data;
    const id = `m-${this.cluster}`;
    return html`${this.problem ? html`<p class="problem" role="status">${this.problem}</p>` : ""}
      ${d === undefined
        ? html`<p role="status">Reading ${this.cluster}…</p>`
        : d.problem !== undefined
          ? html`<p class="problem" role="status">${d.problem}</p>`
          : html`<h4 id="${id}-pods">Pods</h4>
              ${d.podsProblem !== undefined
                ? html`<p class="problem">${d.podsProblem}</p>`
                : d.pods.length === 0
                  ? html`<p>No pods.</p>`
                  : html`<table aria-labelledby="${id}-h ${id}-pods">
                      <thead><tr><th scope="col">Pod</th><th scope="col">Phase</th><th scope="col">Ready</th><th scope="col">Restarts</th><th scope="col">Node</th><th scope="col">Created</th></tr></thead>
                      <tbody>${d.pods.map(
                        (p) => html`<tr data-pod=${p.name}>
                          <th scope="row"><a href="#/pod?${podQuery({ cluster: d.cluster, namespace: this.ref.namespace, pod: p.name })}">${p.name}</a></th>
                          <td>${badge(p.phase)}</td><td>${p.ready}</td><td>${p.restarts}</td><td>${p.node || "–"}</td>
                          <td><time datetime=${p.created}>${ago(p.created)}</time></td>
                        </tr>`,
                      )}</tbody>
                    </table>`}
              <h4 id="${id}-events">Recent events</h4>
              ${d.eventsProblem !== undefined
                ? html`<p class="problem">${d.eventsProblem}</p>`
                : d.events.length === 0
                  ? html`<p>No recent events.</p>`
                  : html`<table aria-labelledby="${id}-h ${id}-events">
                      <thead><tr><th scope="col">Last seen</th><th scope="col">Type</th><th scope="col">Reason</th><th scope="col">Object</th><th scope="col">Message</th><th scope="col">Count</th></tr></thead>
                      <tbody>${d.events.map(
                        (e) => html`<tr>
                          <td><time datetime=${e.lastTime}>${ago(e.lastTime)}</time></td><td>${e.type}</td><td>${e.reason}</td><td>${e.object}</td><td>${e.message}</td><td>${e.count}</td>
                        </tr>`,
                      )}</tbody>
                    </table>`}
              ${d.truncated ? html`<p class="muted">The member holds more pods or events than one read takes: only the first were read.</p>` : ""}`}`;
  }
}
customElements.define("member-workload", MemberWorkloadView);
