/** Parses a Go-style duration ("500ms", "30s", "1m30s", "2h") into milliseconds; throws on anything else. */
export function parseDuration(text: string): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  if (text === "0") return 0;
  while (pos < text.length) {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (m === null) throw new Error(`invalid duration ${JSON.stringify(text)}: use e.g. 500ms, 30s, 1m30s`);
    total += Number(m[1]) * (units[m[2] as string] as number);
    pos = re.lastIndex;
  }
  if (text === "") throw new Error("invalid duration \"\": use e.g. 500ms, 30s, 1m30s");
  return total;
}
