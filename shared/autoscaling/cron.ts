// Cron schedules of CronFederatedHPA rules (pure): parsing, time zones, and the next run.
//
// What is accepted is what a Karmada rule can both pass its webhook with (gronx's check) and run
// with (robfig/cron's standard parser, through gocron): five fields (minute, hour, day of month,
// month, day of week) and the descriptors @yearly, @annually, @monthly, @weekly, @daily and
// @hourly. Refused, as one of the two refuses it there: @every and @midnight, six or seven fields
// (seconds, years), CRON_TZ= prefixes, and the L, W and # modifiers.
//
// Fields take `*`, `?`, numbers, `a-b`, `*/n`, `a-b/n`, `a/n` (a to the field's end) and lists of
// these; month and day of week also take three-letter names (JAN, sun), in any case. Day of week
// is 0-6, Sunday 0. Days match as in robfig/cron: when the day of month or the day of week is `*`
// or `?` (not `*/n`), both must match; when both are restricted, either may.

/** A parsed schedule: the allowed values of each field. */
export interface CronSchedule {
  readonly minute: ReadonlySet<number>;
  readonly hour: ReadonlySet<number>;
  readonly dayOfMonth: ReadonlySet<number>;
  readonly month: ReadonlySet<number>;
  readonly dayOfWeek: ReadonlySet<number>;
  /** The day of month is `*` or `?`: only the day of week restricts days (and the other way round). */
  readonly dayOfMonthStar: boolean;
  readonly dayOfWeekStar: boolean;
}

const DESCRIPTORS: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

interface FieldRange {
  name: string;
  min: number;
  max: number;
  /** Names for values, first name = min. */
  names?: readonly string[];
}

const FIELDS: readonly FieldRange[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTHS },
  { name: "day of week", min: 0, max: 6, names: DAYS },
];

function valueOf(text: string, f: FieldRange): number | Error {
  const named = f.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return f.min + named;
  if (!/^\d+$/.test(text)) return new Error(`${f.name}: ${JSON.stringify(text)} is not a number${f.names ? " or a name" : ""}`);
  const n = Number(text);
  if (n < f.min || n > f.max) return new Error(`${f.name}: ${n} is outside ${f.min}-${f.max}`);
  return n;
}

/** One field's values, and whether it was `*` or `?` (with no step above 1). */
function parseField(text: string, f: FieldRange): { values: Set<number>; star: boolean } | Error {
  const values = new Set<number>();
  let star = false;
  for (const part of text.split(",")) {
    const [range = "", stepText, ...extra] = part.split("/");
    if (extra.length > 0) return new Error(`${f.name}: ${JSON.stringify(part)} has more than one /`);
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0) return new Error(`${f.name}: the step in ${JSON.stringify(part)} is not a positive number`);
      step = Number(stepText);
    }
    let lo: number | Error;
    let hi: number | Error;
    if (range === "*" || range === "?") {
      [lo, hi] = [f.min, f.max];
      star ||= step === 1;
    } else {
      const bounds = range.split("-");
      if (bounds.length > 2) return new Error(`${f.name}: ${JSON.stringify(range)} is not a range`);
      lo = valueOf(bounds[0] ?? "", f);
      // "a/n" runs from a to the field's end, as robfig/cron reads it.
      hi = bounds.length === 2 ? valueOf(bounds[1] ?? "", f) : stepText === undefined ? lo : f.max;
      if (lo instanceof Error) return lo;
      if (hi instanceof Error) return hi;
      if (lo > hi) return new Error(`${f.name}: the range ${JSON.stringify(range)} ends before it starts`);
    }
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { values, star };
}

/** Parses a schedule, or says what is wrong with it. */
export function parseSchedule(schedule: string): CronSchedule | Error {
  const text = schedule.trim();
  const expanded = text.startsWith("@") ? DESCRIPTORS[text.toLowerCase()] : text;
  if (expanded === undefined) return new Error(`unknown descriptor ${JSON.stringify(text)}: want one of ${Object.keys(DESCRIPTORS).join(", ")}`);
  const parts = expanded.split(/\s+/).filter((p) => p !== "");
  if (parts.length !== 5) return new Error(`want 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  const parsed = [];
  for (const [i, f] of FIELDS.entries()) {
    const field = parseField(parts[i] ?? "", f);
    if (field instanceof Error) return field;
    parsed.push(field);
  }
  const [minute, hour, dom, month, dow] = parsed as [typeof parsed[0], typeof parsed[0], typeof parsed[0], typeof parsed[0], typeof parsed[0]];
  return { minute: minute.values, hour: hour.values, dayOfMonth: dom.values, month: month.values, dayOfWeek: dow.values, dayOfMonthStar: dom.star, dayOfWeekStar: dow.star };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * The zone Intl is given for a rule's timeZone, as Go's time.LoadLocation reads the name: "" and
 * "UTC" are UTC, "Local" (and no zone at all) is the control plane's own zone.
 */
function intlZone(timeZone: string | undefined): string | undefined {
  if (timeZone === "") return "UTC";
  return timeZone === "Local" ? undefined : timeZone;
}

function formatter(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? "";
  let f = formatters.get(key);
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
    formatters.set(key, f);
  }
  return f;
}

/**
 * Why a rule's timeZone is refused, or undefined when it names a zone. IANA names, as Go's
 * time.LoadLocation takes them: case-sensitive, and no fixed offsets ("+01:00"), which Intl
 * would take but Karmada refuses.
 */
export function timeZoneError(timeZone: string): string | undefined {
  const zone = intlZone(timeZone);
  if (zone === undefined || zone === "UTC") return undefined;
  if (/^[+-]\d/.test(zone)) return `unknown time zone ${zone}: give an IANA name (Europe/Berlin, Etc/GMT-1), not an offset`;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return `unknown time zone ${zone}`;
  }
  if (resolved !== zone && resolved.toLowerCase() === zone.toLowerCase()) return `unknown time zone ${zone} (names are case-sensitive: ${resolved})`;
  return undefined;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** How far a zone's wall clock may fall back at once; every zone in use falls back by at most 2 h. */
const MAX_FALL_BACK = 3 * HOUR;
/** As robfig/cron: a schedule with no run within five years never runs. */
const YEARS_AHEAD = 5;

/** The wall-clock time of an instant in a zone, as milliseconds of the same reading in UTC. */
function wallOf(instant: number, timeZone: string | undefined): number {
  const p: Record<string, string> = {};
  for (const { type, value } of formatter(timeZone).formatToParts(instant)) p[type] = value;
  return Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
}

const offsetAt = (instant: number, timeZone: string | undefined): number => wallOf(instant, timeZone) - Math.floor(instant / 1000) * 1000;

function dayMatches(s: CronSchedule, d: Date): boolean {
  const dom = s.dayOfMonth.has(d.getUTCDate());
  const dow = s.dayOfWeek.has(d.getUTCDay());
  return s.dayOfMonthStar || s.dayOfWeekStar ? dom && dow : dom || dow;
}

/** The first wall-clock minute at or after `wall` (UTC-read milliseconds) that the schedule names. */
function nextWall(s: CronSchedule, wall: number, untilYear: number): number | undefined {
  let t = Math.ceil(wall / MINUTE) * MINUTE;
  for (;;) {
    const d = new Date(t);
    const [y, mo, day, h] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()];
    if (y > untilYear) return undefined;
    if (!s.month.has(mo + 1)) t = Date.UTC(y, mo + 1, 1);
    else if (!dayMatches(s, d)) t = Date.UTC(y, mo, day + 1);
    else if (!s.hour.has(h)) t = Date.UTC(y, mo, day, h + 1);
    else if (!s.minute.has(d.getUTCMinutes())) t += MINUTE;
    else return t;
  }
}

/** The instants whose wall clock in the zone reads `wall`: none in a spring-forward gap, two in a fall-back overlap. */
function instantsOf(wall: number, timeZone: string | undefined): number[] {
  const offsets = new Set([offsetAt(wall - DAY, timeZone), offsetAt(wall + DAY, timeZone)]);
  return [...offsets].map((o) => wall - o).filter((i) => offsetAt(i, timeZone) === wall - i);
}

/**
 * The first instant after `after` at which the schedule runs in the zone (an IANA name; "" or
 * "UTC" for UTC; absent or "Local" for this process's zone), or undefined when it names no time
 * within five years (30 February). A run is an instant whose wall clock in the zone matches the
 * schedule, so, as with robfig/cron, a time that a spring-forward skips does not run that day and
 * one that a fall-back repeats runs twice.
 */
export function nextRun(schedule: CronSchedule | string, after: Date, timeZone?: string): Date | undefined {
  const s = typeof schedule === "string" ? parseSchedule(schedule) : schedule;
  if (s instanceof Error) throw s;
  const zone = intlZone(timeZone);
  const from = after.getTime();
  const untilYear = new Date(wallOf(from, zone)).getUTCFullYear() + YEARS_AHEAD;
  let best: number | undefined;
  let bestWall = Number.POSITIVE_INFINITY;
  // Start before the wall clock now reads: a fall-back may repeat an earlier reading later on.
  for (let wall = nextWall(s, wallOf(from, zone) - MAX_FALL_BACK, untilYear); wall !== undefined && wall <= bestWall + MAX_FALL_BACK; wall = nextWall(s, wall + MINUTE, untilYear)) {
    for (const i of instantsOf(wall, zone)) {
      if (i > from && (best === undefined || i < best)) [best, bestWall] = [i, wall];
    }
  }
  return best === undefined ? undefined : new Date(best);
}
