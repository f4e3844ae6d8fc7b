// The dashboard's calls to its server: JSON reads, a view kept live by server-sent events, and a
// pod's log followed as a streamed answer.

export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { credentials: "same-origin", headers: { accept: "application/json" } });
  const body = (await res.json().catch(() => ({}))) as T & { error?: string };
  if (!res.ok) throw new HttpError(res.status, body.error ?? `${res.status} ${res.statusText}`);
  return body;
}

/** Opens a live view; onView gets each new version, onError a refusal or a lost connection. Returns the closer. */
export function liveView<T>(query: URLSearchParams, onView: (v: T) => void, onError: (message: string) => void): () => void {
  const source = new EventSource(`/api/events?${query.toString()}`);
  source.onmessage = (e: MessageEvent<string>) => {
    const msg = JSON.parse(e.data) as { view?: T; error?: string };
    // The server ends a stream it refuses (too many live views, a session expired or revoked): no retry.
    if (msg.error !== undefined) {
      source.close();
      onError(msg.error);
    } else onView(msg.view as T);
  };
  source.onerror = () => onError(source.readyState === EventSource.CLOSED ? "live updates stopped: reload to sign in again" : "reconnecting…");
  return () => source.close();
}

/** The hash route: #/page?query. */
export function route(): { page: string; query: URLSearchParams } {
  const hash = location.hash.replace(/^#\/?/, "");
  const [page = "", query = ""] = hash.split("?", 2);
  return { page: page === "" ? "overview" : page, query: new URLSearchParams(query) };
}

export function templateQuery(t: { apiVersion: string; kind: string; namespace: string; name: string }): string {
  return new URLSearchParams({ apiVersion: t.apiVersion, kind: t.kind, namespace: t.namespace, name: t.name }).toString();
}

export const objectName = (t: { kind: string; namespace: string; name: string }) => `${t.kind} ${t.namespace ? `${t.namespace}/` : ""}${t.name}`;

/** What the signed-in session may see beyond the caches: set once from /api/whoami. */
export const session = { memberReads: false };

/**
 * Follows a streamed text answer (a pod's log): onText gets each piece as it arrives, onEnd once
 * with why it ended (undefined: the server ended it). Returns the closer.
 */
export function followText(path: string, onText: (text: string) => void, onEnd: (problem: string | undefined) => void): () => void {
  const abort = new AbortController();
  void (async () => {
    try {
      const res = await fetch(path, { credentials: "same-origin", signal: abort.signal });
      if (!res.ok || res.body === null) {
        const body = (await res.json().catch(() => ({}))) as { error?: string };
        return onEnd(body.error ?? `${res.status} ${res.statusText}`);
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return onEnd(undefined);
        onText(value);
      }
    } catch (err) {
      if (!abort.signal.aborted) onEnd(`the stream broke off: ${(err as Error).message}`);
    }
  })();
  return () => abort.abort();
}

export function podQuery(p: { cluster: string; namespace: string; pod: string; container?: string }): string {
  return new URLSearchParams({ cluster: p.cluster, namespace: p.namespace, pod: p.pod, ...(p.container ? { container: p.container } : {}) }).toString();
}
