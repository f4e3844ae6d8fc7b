// Templates: every propagated template with its state, policy and clusters; links to its topology and explanation.
import { html } from "lit";
import type { TemplateRow } from "../fleet-views.ts";
import { objectName, templateQuery } from "./api.ts";
import { badge, LiveElement } from "./live-element.ts";

export class TemplatesPage extends LiveElement<TemplateRow[]> {
  protected query() {
    return new URLSearchParams({ view: "templates" });
  }

  protected renderView(rows: TemplateRow[]) {
    return html`<h1>Templates</h1>
      ${rows.length === 0
        ? html`<p>No template is propagated yet: apply a PropagationPolicy that selects one.</p>`
        : html`<table>
            <thead><tr><th scope="col">Template</th><th scope="col">State</th><th scope="col">Policy</th><th scope="col">Clusters</th><th scope="col">Details</th></tr></thead>
            <tbody>
              ${rows.map(
                (t) => html`<tr>
                  <th scope="row">${objectName(t)}</th>
                  <td>${badge(t.state)}</td>
                  <td>${t.policy || "–"}</td>
                  <td>${t.clusters.map((c) => html`<span class="pair">${c.name} ${badge(c.state)}</span> `)}</td>
                  <td><a href="#/topology?${templateQuery(t)}">topology<span class="sr-only"> of ${objectName(t)}</span></a> · <a href="#/explain?${templateQuery(t)}">explain<span class="sr-only"> ${objectName(t)}</span></a></td>
                </tr>`,
              )}
            </tbody>
          </table>`}`;
  }
}
customElements.define("templates-page", TemplatesPage);
