// Topology of one template: template → policy → binding → one box per cluster → member object,
// coloured by health (the word is always written too), live.
import { html } from "lit";
import type { Topology } from "../template-views.ts";
import { objectName, route, templateQuery } from "./api.ts";
import { badge, LiveElement } from "./live-element.ts";

export class TopologyPage extends LiveElement<Topology> {
  protected query() {
    const q = route().query;
    return new URLSearchParams({ view: "topology", apiVersion: q.get("apiVersion") ?? "", kind: q.get("kind") ?? "", namespace: q.get("namespace") ?? "", name: q.get("name") ?? "" });
  }

  protected renderView(t: Topology) {
    const tpl = t.template;
    return html`<h1>Topology of ${objectName(tpl)}</h1>
      <p><a href="#/explain?${templateQuery(tpl)}">Explain where ${objectName(tpl)} runs, and why</a></p>
      <ol class="chain" aria-label="propagation chain">
        <li class="node state-${tpl.state}" aria-label="template ${objectName(tpl)}: ${tpl.state}"><span class="what">Template</span> ${objectName(tpl)} ${badge(tpl.state)}</li>
        <li class="node"><span class="what">Policy</span> ${t.policy || "–"}</li>
        <li class="node"><span class="what">Binding</span> ${t.binding.name}
          <ul class="conditions">${t.binding.conditions.map((c) => html`<li>${c.type}: ${c.status}${c.reason ? ` (${c.reason})` : ""}</li>`)}</ul>
        </li>
        <li>
          <ul class="clusters" aria-label="clusters">
            ${t.clusters.map(
              (c) => html`<li class="box state-${c.state}" data-cluster=${c.cluster} data-state=${c.state} aria-label="cluster ${c.cluster}: ${c.state}">
                <h2>${c.cluster} ${badge(c.state)}</h2>
                <dl>
                  <dt>Work</dt><dd>${c.workHash || "none"}${c.rolloutRevision ? html` (rollout revision ${c.rolloutRevision})` : ""}</dd>
                  <dt>Applied</dt><dd>${c.applied ? `yes${c.observedHash ? ` (${c.observedHash})` : ""}` : "no"}</dd>
                  <dt>Health</dt><dd>${c.health}</dd>
                  <dt>Replicas</dt><dd>${c.replicas ?? "–"}</dd>
                  ${c.message ? html`<dt>Message</dt><dd>${c.message}</dd>` : ""}
                </dl>
                <p class="member">→ member object ${objectName(c.member)}: ${badge(c.clusterReady ? c.health : "NotReady")}</p>
              </li>`,
            )}
          </ul>
        </li>
      </ol>`;
  }
}
customElements.define("topology-page", TopologyPage);
