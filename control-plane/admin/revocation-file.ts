// The admin revocation list on disk (--admin-revocation-list): read at start and read again when
// it changes, with no restart. An Admin call looks at the file's stat (inode, size, mtime) at most
// once a second and reads it only when that changed, so a ConfigMap's update (a symlink swap) or
// an edit in place is seen within about a second of the next call. A list that cannot be read or
// has a bad line fails closed: every Admin call is refused until it is fixed (agents are not
// affected). A bad line could have been meant to revoke someone; skipping it would let them in.
import { readFile, stat } from "node:fs/promises";
import type { Logger } from "pino";
import { parseRevocationList, type RevocationList } from "../../shared/revocation-list.ts";

/** How often at most the file's stat is looked at. */
const CHECK_EVERY_MS = 1_000;

/** The list to judge calls by, or why there is none (every admin call is refused then). */
export type RevocationState = { list: RevocationList } | { broken: string };

const EMPTY: RevocationState = { list: parseRevocationList("") };

export class RevocationFile {
  private readonly path: string | undefined;
  private readonly log: Logger;
  private readonly now: () => number;
  private state: RevocationState = EMPTY;
  private seen: string | undefined;
  private checkedAt = -Infinity;
  private checking: Promise<RevocationState> | undefined;

  /** `path` undefined or empty: no list, nothing is revoked. */
  constructor(opts: { path: string | undefined; log: Logger; now?: () => number }) {
    this.path = opts.path === "" ? undefined : opts.path;
    this.log = opts.log;
    this.now = opts.now ?? Date.now;
  }

  /** The list as the file holds it now (checked at most once a second). */
  current(): Promise<RevocationState> {
    if (this.path === undefined) return Promise.resolve(EMPTY);
    if (this.now() - this.checkedAt < CHECK_EVERY_MS) return Promise.resolve(this.state);
    this.checking ??= this.check(this.path).finally(() => {
      this.checkedAt = this.now();
      this.checking = undefined;
    });
    return this.checking;
  }

  private async check(path: string): Promise<RevocationState> {
    let text: string;
    try {
      const s = await stat(path);
      const version = `${s.ino}/${s.size}/${s.mtimeMs}/${s.ctimeMs}`;
      if (version === this.seen) return this.state;
      text = await readFile(path, "utf8");
      this.seen = version;
    } catch (err) {
      const message = (err as Error).message;
      if (!("broken" in this.state) || this.seen !== `error ${message}`) this.log.error({ file: path, err: message }, "cannot read the admin revocation list; refusing every admin call");
      this.seen = `error ${message}`;
      this.state = { broken: `cannot read ${path}: ${message}` };
      return this.state;
    }
    const list = parseRevocationList(text);
    if (list.errors.length > 0) {
      this.log.error({ file: path, errors: list.errors }, "the admin revocation list has lines that are neither a serial number nor a SHA-256 fingerprint; refusing every admin call");
      const first = list.errors[0] as RevocationList["errors"][number];
      const more = list.errors.length > 1 ? ` (and ${list.errors.length - 1} more bad line${list.errors.length === 2 ? "" : "s"})` : "";
      this.state = { broken: `${path} line ${first.line} ${JSON.stringify(first.text)}: ${first.reason}${more}` };
    } else {
      this.log.info({ file: path, serials: list.serials.size, fingerprints: list.fingerprints.size }, "admin revocation list read");
      this.state = { list };
    }
    return this.state;
  }
}
