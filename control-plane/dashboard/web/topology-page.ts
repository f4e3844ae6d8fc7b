// Topology of one template: template → policy → binding → one box per cluster → member object,
// coloured by health (the word is always written too), live; below it, each member's pods of the
// workload and their recent events, read inside the member as the signed-in user.
import { html } from "lit";
import { repeat } from "lit/directives/repeat.js";
import type { Topology } from "../template-views.ts";
import { objectName, route, session, templateQuery } from "./api.ts";
import { badge, LiveElement } from "./live-element.ts";
import "./member-workload.ts";

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
      </ol>
      <section aria-labelledby="inside-h">
        <h2 id="inside-h">Inside the members</h2>
        ${session.memberReads
          ? repeat(
              t.clusters,
              (c) => c.cluster,
              (c) => html`<section class="member" aria-labelledby="m-${c.cluster}-h" data-member=${c.cluster}>
                <h3 id="m-${c.cluster}-h">${c.cluster}: ${objectName(c.member)}</h3>
                <member-workload .cluster=${c.cluster} .ref=${{ apiVersion: tpl.apiVersion, kind: c.member.kind, namespace: c.member.namespace, name: c.member.name }}></member-workload>
              </section>`,
            )
          : html`<p>Pods, events and logs inside the members need the control plane's member API (<code>--member-api-address</code>).</p>`}
      </section>`;
  }
}
customElements.define("topology-page", TopologyPage);
