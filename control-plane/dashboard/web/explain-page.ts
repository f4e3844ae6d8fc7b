// Explain: the same text `flotillactl explain` prints, for one template (optionally one cluster).
import { html, LitElement } from "lit";
import { getJson, objectName, route, templateQuery } from "./api.ts";

export class ExplainPage extends LitElement {
  static override properties = { text: { state: true }, problem: { state: true } };
  declare text: string | undefined;
  declare problem: string;

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  private async load(): Promise<void> {
    this.problem = "";
    try {
      const res = await getJson<{ text: string }>(`/api/explain?${route().query.toString()}`);
      this.text = res.text;
    } catch (err) {
      this.problem = (err as Error).message;
    }
  }

  protected override render() {
    const q = route().query;
    const t = { apiVersion: q.get("apiVersion") ?? "", kind: q.get("kind") ?? "", namespace: q.get("namespace") ?? "", name: q.get("name") ?? "" };
    return html`<h1>Explain ${objectName(t)}${q.get("cluster") ? ` on ${q.get("cluster")}` : ""}</h1>
      <p><a href="#/topology?${templateQuery(t)}">Topology of ${objectName(t)}</a> · <button type="button" @click=${() => void this.load()}>Refresh</button></p>
      ${this.problem ? html`<p class="problem" role="alert">${this.problem}</p>` : ""}
      ${this.text === undefined ? html`<p role="status">Loading…</p>` : html`<pre class="explain" aria-label="explanation">${this.text}</pre>`}`;
  }
}
customElements.define("explain-page", ExplainPage);
