// The dashboard's shell: who is signed in, the navigation, and the page the hash names.
import { html, LitElement } from "lit";
import { getJson, HttpError, route, session } from "./api.ts";
import "./clusters-page.ts";
import "./explain-page.ts";
import "./features-page.ts";
import "./overview-page.ts";
import "./pod-page.ts";
import "./templates-page.ts";
import "./topology-page.ts";

const PAGES: Record<string, { title: string; tag: string; nav?: true }> = {
  overview: { title: "Overview", tag: "overview-page", nav: true },
  templates: { title: "Templates", tag: "templates-page", nav: true },
  clusters: { title: "Clusters", tag: "clusters-page", nav: true },
  features: { title: "Rollouts, DNS, deletions", tag: "features-page", nav: true },
  topology: { title: "Topology", tag: "topology-page" },
  explain: { title: "Explain", tag: "explain-page" },
  pod: { title: "Pod", tag: "pod-page" },
};

export class FlotillaApp extends LitElement {
  static override properties = { who: { state: true }, problem: { state: true }, hash: { state: true } };
  declare who: { user: string; role: string; via: string } | undefined;
  declare problem: string;
  /** The whole hash: a new one (another page, or another template) re-renders the page element. */
  declare hash: string;

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.problem = "";
    this.hash = location.hash;
    // A new hash replaces the page element, so its live view is closed and the next one opened.
    window.addEventListener("hashchange", () => (this.hash = location.hash));
    getJson<{ user: string; role: string; via: string; memberReads: boolean }>("/api/whoami").then(
      (w) => {
        session.memberReads = w.memberReads;
        this.who = w;
      },
      (err: unknown) => (this.problem = err instanceof HttpError && err.status === 401 ? "signin" : (err as Error).message),
    );
  }

  protected override render() {
    if (this.problem === "signin") {
      return html`<main><h1>Sign in to Flotilla</h1>
        <p>Run <code>flotillactl dashboard</code> (with an admin or viewer certificate) and open the link it prints, or present your client certificate.</p></main>`;
    }
    if (this.problem) return html`<main><p class="problem" role="alert">${this.problem}</p></main>`;
    if (this.who === undefined) return html`<main><p role="status">Loading…</p></main>`;
    const current = route().page;
    const page = PAGES[current] ?? PAGES.overview;
    document.title = `${page?.title ?? "Overview"} · Flotilla`;
    return html`<header>
        <a class="skip" href="#main">Skip to content</a>
        <span class="brand">Flotilla</span>
        <nav aria-label="main">
          <ul>${Object.entries(PAGES).filter(([, p]) => p.nav).map(([id, p]) => html`<li><a href="#/${id}" aria-current=${id === current ? "page" : "false"}>${p.title}</a></li>`)}</ul>
        </nav>
        <span class="who">${this.who.user} (${this.who.role}, read-only)</span>
      </header>
      <main id="main" tabindex="-1">${this.pageElement(page?.tag ?? "overview-page")}</main>`;
  }

  private pageElement(tag: string) {
    // One element per hash: a new template's topology opens a new live view.
    const el = document.createElement(tag);
    el.dataset.route = this.hash;
    return el;
  }
}
customElements.define("flotilla-app", FlotillaApp);
