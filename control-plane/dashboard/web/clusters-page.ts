// Clusters: per cluster, what runs there and its health.
import { html } from "lit";
import type { ClusterWorkloads } from "../fleet-views.ts";
import { objectName, route, templateQuery } from "./api.ts";
import { badge, LiveElement } from "./live-element.ts";

export class ClustersPage extends LiveElement<ClusterWorkloads[]> {
  protected query() {
    return new URLSearchParams({ view: "clusters" });
  }

  protected renderView(all: ClusterWorkloads[]) {
    const only = route().query.get("cluster");
    const shown = only ? all.filter((c) => c.cluster.name === only) : all;
    return html`<h1>Clusters</h1>
      ${shown.map(
        (c) => html`<section aria-labelledby="c-${c.cluster.name}">
          <h2 id="c-${c.cluster.name}">${c.cluster.name} ${badge(c.cluster.ready === "True" ? "Ready" : "NotReady")}</h2>
          <p class="muted">${[c.cluster.provider, c.cluster.region, c.cluster.zone].filter(Boolean).join(" · ") || "no provider, region or zone"}; Kubernetes ${c.cluster.kubernetesVersion || "?"}; agent ${c.cluster.agentVersion || "?"}${c.cluster.taints.length ? `; taints ${c.cluster.taints.join(", ")}` : ""}</p>
          ${c.objects.length === 0
            ? html`<p>Nothing runs here.</p>`
            : html`<table>
                <thead><tr><th scope="col">Object</th><th scope="col">State</th><th scope="col">Replicas</th><th scope="col">Message</th></tr></thead>
                <tbody>${c.objects.map((o) => html`<tr><th scope="row"><a href="#/topology?${templateQuery(o)}">${objectName(o)}</a></th><td>${badge(o.state)}</td><td>${o.replicas ?? "–"}</td><td>${o.message}</td></tr>`)}</tbody>
              </table>`}
        </section>`,
      )}`;
  }
}
customElements.define("clusters-page", ClustersPage);
