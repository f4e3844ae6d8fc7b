// Overview: the clusters (Ready, region/zone, capacity, agent version, last heartbeat), the
// templates by state, and recent warnings.
import { html } from "lit";
import type { Overview } from "../fleet-views.ts";
import { ago, badge, LiveElement, quantity } from "./live-element.ts";

export class OverviewPage extends LiveElement<Overview> {
  protected query() {
    return new URLSearchParams({ view: "overview" });
  }

  protected renderView(o: Overview) {
    return html`<h1>Overview</h1>
      <section aria-labelledby="clusters-h">
        <h2 id="clusters-h">Clusters</h2>
        <table>
          <caption>Member clusters: ${o.clusters.filter((c) => c.ready === "True").length} of ${o.clusters.length} Ready</caption>
          <thead><tr><th scope="col">Cluster</th><th scope="col">Ready</th><th scope="col">Region / zone</th><th scope="col">Nodes</th><th scope="col">CPU allocated / allocatable</th><th scope="col">Memory allocated / allocatable</th><th scope="col">Agent</th><th scope="col">Last heartbeat</th></tr></thead>
          <tbody>
            ${o.clusters.map(
              (c) => html`<tr data-cluster=${c.name}>
                <th scope="row"><a href="#/clusters?cluster=${encodeURIComponent(c.name)}">${c.name}</a></th>
                <td>${badge(c.ready === "True" ? "Ready" : "NotReady")} <span class="muted">${c.readyReason}</span></td>
                <td>${c.region || "–"} / ${c.zone || "–"}</td>
                <td>${c.nodes.ready}/${c.nodes.total}</td>
                <td>${c.capacity.cpu?.allocated || "–"} / ${c.capacity.cpu?.allocatable || "–"}</td>
                <td>${quantity(c.capacity.memory?.allocated)} / ${quantity(c.capacity.memory?.allocatable)}</td>
                <td>${c.agentVersion || "–"}</td>
                <td><time datetime=${c.lastHeartbeatTime}>${ago(c.lastHeartbeatTime)}</time></td>
              </tr>`,
            )}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="templates-h">
        <h2 id="templates-h">Templates</h2>
        <ul class="counts">
          <li><a href="#/templates">${o.templates.total} in all</a></li>
          ${Object.entries(o.templates.byState).map(([state, n]) => html`<li>${badge(state)} ${n}</li>`)}
        </ul>
      </section>
      <section aria-labelledby="warnings-h">
        <h2 id="warnings-h">Recent warnings</h2>
        ${o.warnings.length === 0
          ? html`<p>No warnings.</p>`
          : html`<table>
              <thead><tr><th scope="col">When</th><th scope="col">Object</th><th scope="col">Reason</th><th scope="col">Message</th><th scope="col">Count</th></tr></thead>
              <tbody>${o.warnings.map((w) => html`<tr><td><time datetime=${w.time}>${ago(w.time)}</time></td><td>${w.object}</td><td>${w.reason}</td><td>${w.message}</td><td>${w.count}</td></tr>`)}</tbody>
            </table>`}
      </section>`;
  }
}
customElements.define("overview-page", OverviewPage);
