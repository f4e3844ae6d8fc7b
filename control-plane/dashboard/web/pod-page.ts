// One pod in a member (issue 41): its phase, node and containers, and the last lines of one
// container's log, followed live (lines are appended as the member writes them). Read inside the
// member as the signed-in user; a link per container chooses whose log.
import { html, LitElement } from "lit";
import type { MemberPodView } from "../member-views.ts";
import { followText, getJson, podQuery, route } from "./api.ts";
import { ago, badge } from "./live-element.ts";

/** Lines the page keeps of a log; older ones are dropped as new ones come. */
const MAX_LINES = 2000;

export class PodPage extends LitElement {
  static override properties = { view: { state: true }, problem: { state: true }, logState: { state: true } };
  declare view: MemberPodView | undefined;
  declare problem: string;
  declare logState: string;
  private closeLog: (() => void) | undefined;
  /** The log's text nodes and the lines each holds, oldest first. */
  private readonly pieces: { node: Text; lines: number }[] = [];
  private lines = 0;

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.problem = "";
    this.logState = "";
    void this.load();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.closeLog?.();
  }

  private target() {
    const q = route().query;
    return { cluster: q.get("cluster") ?? "", namespace: q.get("namespace") ?? "", pod: q.get("pod") ?? "", container: q.get("container") ?? "" };
  }

  /** The container whose log is shown: the one the route names, else the pod's first. */
  private container(): string | undefined {
    return this.target().container || this.view?.pod?.containers[0]?.name;
  }

  private async load(): Promise<void> {
    const t = this.target();
    try {
      this.view = await getJson<MemberPodView>(`/api/member/pod?${podQuery({ cluster: t.cluster, namespace: t.namespace, pod: t.pod })}`);
    } catch (err) {
      this.problem = (err as Error).message;
      return;
    }
    const container = this.container();
    if (this.view.pod === undefined || container === undefined) return;
    await this.updateComplete;
    this.follow(container);
  }

  private follow(container: string): void {
    const pre = this.querySelector<HTMLPreElement>("pre.log");
    if (pre === null) return;
    this.logState = "Following the log…";
    const t = this.target();
    this.closeLog = followText(
      `/api/member/log?${podQuery({ ...t, container })}`,
      (text) => this.appendLog(pre, text),
      (problem) => (this.logState = problem ?? "The log ended (the container stopped, or the member closed the stream): reload to read it again."),
    );
  }

  private appendLog(pre: HTMLPreElement, text: string): void {
    const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
    const node = document.createTextNode(text);
    pre.append(node);
    const lines = text.split("\n").length - 1;
    this.pieces.push({ node, lines });
    this.lines += lines;
    while (this.lines > MAX_LINES && this.pieces.length > 1) {
      const old = this.pieces.shift();
      old?.node.remove();
      this.lines -= old?.lines ?? 0;
    }
    if (atEnd) pre.scrollTop = pre.scrollHeight;
  }

  protected override render() {
    const t = this.target();
    const p = this.view?.pod;
    const container = this.container();
    return html`<h1>Pod ${t.namespace}/${t.pod} in ${t.cluster}</h1>
      <p><a href="#/clusters?cluster=${encodeURIComponent(t.cluster)}">What runs in ${t.cluster}</a></p>
      ${this.problem ? html`<p class="problem" role="alert">${this.problem}</p>` : ""}
      ${this.view === undefined && !this.problem ? html`<p role="status">Reading ${t.cluster}…</p>` : ""}
      ${this.view?.problem !== undefined ? html`<p class="problem" role="status">${this.view.problem}</p>` : ""}
      ${p === undefined
        ? ""
        : html`<dl class="facts">
              <dt>Phase</dt><dd>${badge(p.phase)}</dd>
              <dt>Ready</dt><dd>${p.ready}</dd>
              <dt>Restarts</dt><dd>${p.restarts}</dd>
              <dt>Node</dt><dd>${p.node || "–"}</dd>
              <dt>Created</dt><dd><time datetime=${p.created}>${ago(p.created)}</time></dd>
            </dl>
            <table>
              <caption>Containers</caption>
              <thead><tr><th scope="col">Container</th><th scope="col">Image</th><th scope="col">State</th><th scope="col">Ready</th><th scope="col">Restarts</th><th scope="col">Log</th></tr></thead>
              <tbody>${p.containers.map(
                (c) => html`<tr>
                  <th scope="row">${c.name}</th><td>${c.image}</td><td>${badge(c.state)}</td><td>${c.ready ? "yes" : "no"}</td><td>${c.restarts}</td>
                  <td>${c.name === container ? html`<span aria-current="true">shown below</span>` : html`<a href="#/pod?${podQuery({ ...t, container: c.name })}">show<span class="sr-only"> the log of ${c.name}</span></a>`}</td>
                </tr>`,
              )}</tbody>
            </table>
            <h2 id="log-h">Log of ${container}</h2>
            <p role="status">${this.logState}</p>
            <pre class="log" role="log" tabindex="0" aria-labelledby="log-h"></pre>`}`;
  }
}
customElements.define("pod-page", PodPage);
