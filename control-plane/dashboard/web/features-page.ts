// Rollouts, DNS records and held deletions: each shown when the fleet uses it.
import { html } from "lit";
import type { HeldDeletion } from "../../../shared/held-deletions.ts";
import type { DnsRow, RolloutRow } from "../template-views.ts";
import { badge, LiveElement } from "./live-element.ts";

interface Features {
  rollouts: RolloutRow[];
  dns: DnsRow[];
  heldDeletions: HeldDeletion[];
}

export class FeaturesPage extends LiveElement<Features> {
  protected query() {
    return new URLSearchParams({ view: "features" });
  }

  protected renderView(f: Features) {
    const none = f.rollouts.length + f.dns.length + f.heldDeletions.length === 0;
    return html`<h1>Rollouts, DNS and held deletions</h1>
      ${none ? html`<p>No progressive rollout, DNS record or held deletion in the fleet.</p>` : ""}
      ${f.rollouts.length === 0
        ? ""
        : html`<section aria-labelledby="rollouts-h"><h2 id="rollouts-h">Rollouts</h2><table>
            <thead><tr><th scope="col">Template</th><th scope="col">Phase</th><th scope="col">Revision</th><th scope="col">Stable</th><th scope="col">Clusters</th><th scope="col">Waiting for</th></tr></thead>
            <tbody>${f.rollouts.map((r) => html`<tr><th scope="row">${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name}</th><td>${badge(r.phase)}</td><td>${r.revision}</td><td>${r.stableRevision}</td><td>${r.clusters.map((c) => html`<span class="pair">${c.name} ${badge(c.phase)}</span> `)}</td><td>${r.waitingFor || r.message}</td></tr>`)}</tbody>
          </table></section>`}
      ${f.dns.length === 0
        ? ""
        : html`<section aria-labelledby="dns-h"><h2 id="dns-h">DNS records</h2><table>
            <thead><tr><th scope="col">Record</th><th scope="col">Ready</th><th scope="col">Clusters</th><th scope="col">Message</th></tr></thead>
            <tbody>${f.dns.map((d) => html`<tr><th scope="row">${d.kind} ${d.namespace}/${d.name}</th><td>${badge(d.ready === "True" ? "Ready" : "NotReady")} ${d.reason}</td><td>${d.clusters.join(", ") || "–"}</td><td>${d.message}</td></tr>`)}</tbody>
          </table></section>`}
      ${f.heldDeletions.length === 0
        ? ""
        : html`<section aria-labelledby="held-h"><h2 id="held-h">Held deletions</h2>
            <p>Approve or reject them with <code>flotillactl deletions approve|reject --cluster C</code> (an admin certificate).</p>
            <table>
            <thead><tr><th scope="col">Cluster</th><th scope="col">Object</th><th scope="col">Why</th></tr></thead>
            <tbody>${f.heldDeletions.map((h) => html`<tr><th scope="row">${h.cluster}</th><td>${h.kind} ${h.namespace ? `${h.namespace}/` : ""}${h.name}</td><td>${h.message}</td></tr>`)}</tbody>
          </table></section>`}`;
  }
}
customElements.define("features-page", FeaturesPage);
