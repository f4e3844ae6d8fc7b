// A page that shows one live view: opens its event stream while on screen, closes it after.
import { html, LitElement, type TemplateResult } from "lit";
import { liveView } from "./api.ts";

export abstract class LiveElement<T> extends LitElement {
  static override properties = { view: { state: true }, problem: { state: true } };
  declare view: T | undefined;
  declare problem: string;
  private close: (() => void) | undefined;

  /** The view's query (view=… and its parameters). */
  protected abstract query(): URLSearchParams;
  protected abstract renderView(v: T): TemplateResult;

  // Light DOM: the page's stylesheet applies, and nothing needs inline styles (the CSP forbids them).
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.problem = "";
    this.close = liveView<T>(
      this.query(),
      (v) => {
        this.view = v;
        this.problem = "";
      },
      (m) => (this.problem = m),
    );
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.close?.();
  }

  protected override render(): TemplateResult {
    return html`${this.problem ? html`<p class="problem" role="status">${this.problem}</p>` : ""}
    ${this.view === undefined ? html`<p role="status">Loading…</p>` : this.renderView(this.view)}`;
  }
}

/** A state word as a badge: the word itself is shown, the colour only repeats it. */
export const badge = (word: string) => html`<span class="badge state-${word.replace(/[^A-Za-z]/g, "")}">${word}</span>`;

export function ago(iso: string, now = Date.now()): string {
  if (iso === "") return "never";
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  return s < 120 ? `${s}s ago` : s < 7200 ? `${Math.round(s / 60)}m ago` : `${Math.round(s / 3600)}h ago`;
}

/** A memory quantity in plain bytes (as agents report it) as GiB; any other form as given. */
export function quantity(q: string | undefined): string {
  if (q === undefined || q === "") return "–";
  return /^\d+$/.test(q) ? `${(Number(q) / 2 ** 30).toFixed(1)} GiB` : q;
}
