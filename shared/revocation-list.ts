// The admin certificate revocation list (DESIGN §7): a text file the control plane reads
// (`--admin-revocation-list`) and `flotilla certs revoke` appends to. One entry a line: a
// certificate's serial number (hex) or its SHA-256 fingerprint (as `openssl x509 -fingerprint
// -sha256` prints it), colons optional, any case; `#` starts a comment. Pure: no I/O.

/** What a list holds: normalized serials and fingerprints (upper-case hex, no colons), and its bad lines. */
export interface RevocationList {
  serials: ReadonlySet<string>;
  fingerprints: ReadonlySet<string>;
  /** Lines that are neither a serial nor a fingerprint: 1-based line number, the text, why. */
  errors: { line: number; text: string; reason: string }[];
}

/** The longest serial number RFC 5280 allows: 20 octets. */
const MAX_SERIAL_HEX = 40;
const FINGERPRINT_HEX = 64;

/** Parses the text of a revocation list; a line it cannot read is in `errors`, never skipped silently. */
export function parseRevocationList(text: string): RevocationList {
  const serials = new Set<string>();
  const fingerprints = new Set<string>();
  const errors: RevocationList["errors"] = [];
  text.split("\n").forEach((raw, i) => {
    const hash = raw.indexOf("#");
    const entry = (hash < 0 ? raw : raw.slice(0, hash)).trim();
    if (entry === "") return;
    const parsed = parseEntry(entry);
    if ("reason" in parsed) errors.push({ line: i + 1, text: raw.trim(), reason: parsed.reason });
    else (parsed.kind === "serial" ? serials : fingerprints).add(parsed.hex);
  });
  return { serials, fingerprints, errors };
}

/**
 * One entry: a fingerprint is 64 hex digits, a serial 1 to 40. The prefixes openssl prints
 * (`sha256 Fingerprint=`, `serial=`) are taken too, so its output can be pasted as it is.
 */
function parseEntry(entry: string): { kind: "serial" | "fingerprint"; hex: string } | { reason: string } {
  const prefixed = /^(sha256 fingerprint|serial)\s*=\s*(.*)$/i.exec(entry);
  const said = prefixed === null ? undefined : (prefixed[1] as string).toLowerCase() === "serial" ? "serial" : "fingerprint";
  const value = prefixed === null ? entry : (prefixed[2] as string);
  const hex = value.replace(/:/g, "").toUpperCase();
  if (!/^[0-9A-F]+$/.test(hex)) return { reason: "not hex: expected a serial number or a SHA-256 fingerprint (hex, colons optional)" };
  if (said === "fingerprint" || (said === undefined && hex.length === FINGERPRINT_HEX)) {
    return hex.length === FINGERPRINT_HEX ? { kind: "fingerprint", hex } : { reason: `a SHA-256 fingerprint has ${FINGERPRINT_HEX} hex digits, not ${hex.length}` };
  }
  if (hex.length > MAX_SERIAL_HEX) return { reason: `${hex.length} hex digits: neither a serial number (at most ${MAX_SERIAL_HEX}) nor a SHA-256 fingerprint (${FINGERPRINT_HEX})` };
  return { kind: "serial", hex: serialKey(hex) };
}

/** A serial number as the list compares it: upper-case hex without colons or leading zeros. */
function serialKey(hex: string): string {
  return hex.replace(/:/g, "").toUpperCase().replace(/^0+(?=.)/, "");
}

/**
 * The entry of the list that revokes a certificate (as Node's PeerCertificate names it:
 * `fingerprint256` "AB:CD:…", `serialNumber` hex), or undefined when none does.
 */
export function revokingEntry(list: RevocationList, cert: { fingerprint256?: string; serialNumber?: string }): string | undefined {
  const fingerprint = (cert.fingerprint256 ?? "").replace(/:/g, "").toUpperCase();
  if (fingerprint !== "" && list.fingerprints.has(fingerprint)) return `SHA-256 fingerprint ${fingerprint}`;
  const serial = cert.serialNumber === undefined || cert.serialNumber === "" ? "" : serialKey(cert.serialNumber);
  if (serial !== "" && list.serials.has(serial)) return `serial number ${serial}`;
  return undefined;
}

/** The line `flotilla certs revoke` appends: the fingerprint, and a comment naming the certificate and the day. */
export function revocationEntry(cert: { fingerprint256: string; subject: string; serialNumber: string }, at: Date): string {
  const subject = cert.subject.split("\n").filter(Boolean).join(", ");
  return `${cert.fingerprint256.toUpperCase()} # ${subject}, serial ${cert.serialNumber.toUpperCase()}, revoked ${at.toISOString()}\n`;
}
