import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { nextRun, parseSchedule, timeZoneError } from "./cron.ts";

const sorted = (s: ReadonlySet<number>): number[] => [...s].sort((a, b) => a - b);
const range = (lo: number, hi: number, step = 1): number[] => Array.from({ length: Math.floor((hi - lo) / step) + 1 }, (_, i) => lo + i * step);

describe("parseSchedule: the fields a schedule allows", () => {
  const cases: { schedule: string; field: "minute" | "hour" | "dayOfMonth" | "month" | "dayOfWeek"; want: number[] }[] = [
    { schedule: "* * * * *", field: "minute", want: range(0, 59) },
    { schedule: "*/15 * * * *", field: "minute", want: [0, 15, 30, 45] },
    { schedule: "5/20 * * * *", field: "minute", want: [5, 25, 45] },
    { schedule: "10-20/5 * * * *", field: "minute", want: [10, 15, 20] },
    { schedule: "1,2,30-31 * * * *", field: "minute", want: [1, 2, 30, 31] },
    { schedule: "0 9-17 * * *", field: "hour", want: range(9, 17) },
    { schedule: "0 0 ? * *", field: "dayOfMonth", want: range(1, 31) },
    { schedule: "0 0 1 JAN,jul *", field: "month", want: [1, 7] },
    { schedule: "0 0 1 feb-APR *", field: "month", want: [2, 3, 4] },
    { schedule: "0 0 * * MON-FRI", field: "dayOfWeek", want: range(1, 5) },
    { schedule: "0 0 * * sun,6", field: "dayOfWeek", want: [0, 6] },
    { schedule: "  0   0 * *   0  ", field: "dayOfWeek", want: [0] },
    { schedule: "@hourly", field: "minute", want: [0] },
    { schedule: "@DAILY", field: "hour", want: [0] },
    { schedule: "@weekly", field: "dayOfWeek", want: [0] },
    { schedule: "@monthly", field: "dayOfMonth", want: [1] },
    { schedule: "@yearly", field: "month", want: [1] },
    { schedule: "@annually", field: "dayOfMonth", want: [1] },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.schedule)}: ${c.field} ${JSON.stringify(c.want.length > 8 ? `${c.want[0]}..${c.want.at(-1)}` : c.want)}`, () => {
      const s = parseSchedule(c.schedule);
      assert.ok(!(s instanceof Error), String(s));
      assert.deepEqual(sorted(s[c.field]), c.want);
    });
  }
  it("a day field is a star for * and ?, not for */n or a list", () => {
    const star = (schedule: string) => {
      const s = parseSchedule(schedule);
      assert.ok(!(s instanceof Error));
      return [s.dayOfMonthStar, s.dayOfWeekStar];
    };
    assert.deepEqual(star("0 0 * * 1"), [true, false]);
    assert.deepEqual(star("0 0 13 * ?"), [false, true]);
    assert.deepEqual(star("0 0 */2 * */1"), [false, true]);
    assert.deepEqual(star("0 0 1,15 * 1-5"), [false, false]);
  });
});

describe("parseSchedule: what Karmada's webhook or scheduler refuses", () => {
  const cases: { schedule: string; want: RegExp }[] = [
    { schedule: "", want: /want 5 fields.*got 0/ },
    { schedule: "* * * *", want: /want 5 fields.*got 4/ },
    { schedule: "0 * * * * *", want: /want 5 fields.*got 6/ },
    { schedule: "0 0 0 1 1 * 2030", want: /got 7/ },
    { schedule: "@every 5m", want: /unknown descriptor/ },
    { schedule: "@midnight", want: /unknown descriptor/ },
    { schedule: "@5minutes", want: /unknown descriptor/ },
    { schedule: "CRON_TZ=Europe/Berlin 0 9 * * *", want: /want 5 fields/ },
    { schedule: "60 * * * *", want: /minute: 60 is outside 0-59/ },
    { schedule: "0 24 * * *", want: /hour: 24 is outside 0-23/ },
    { schedule: "0 0 0 * *", want: /day of month: 0 is outside 1-31/ },
    { schedule: "0 0 32 * *", want: /day of month: 32/ },
    { schedule: "0 0 1 13 *", want: /month: 13 is outside 1-12/ },
    { schedule: "0 0 * * 7", want: /day of week: 7 is outside 0-6/ },
    { schedule: "0 0 * * MON-FRIDAY", want: /"FRIDAY" is not a number or a name/ },
    { schedule: "MON * * * *", want: /minute: "MON" is not a number$/ },
    { schedule: "*/0 * * * *", want: /step in "\*\/0" is not a positive number/ },
    { schedule: "*/x * * * *", want: /step/ },
    { schedule: "1/2/3 * * * *", want: /more than one \// },
    { schedule: "30-10 * * * *", want: /ends before it starts/ },
    { schedule: "1-2-3 * * * *", want: /not a range/ },
    { schedule: "0 0 L * *", want: /day of month: "L"/ },
    { schedule: "0 0 * * 5#3", want: /day of week: "5#3"/ },
    { schedule: "0 0 15W * *", want: /"15W"/ },
    { schedule: "-1 * * * *", want: /minute/ },
    { schedule: "1, * * * *", want: /minute: "" is not a number/ },
  ];
  for (const c of cases) {
    it(`refuses ${JSON.stringify(c.schedule)}`, () => {
      const s = parseSchedule(c.schedule);
      assert.match(s instanceof Error ? s.message : "(accepted)", c.want);
    });
  }
});

describe("nextRun: the first run after a time, in a zone", () => {
  const cases: { name: string; schedule: string; after: string; zone?: string; want: string | undefined }[] = [
    { name: "every minute: the next whole minute", schedule: "* * * * *", after: "2026-06-01T10:07:30.500Z", zone: "UTC", want: "2026-06-01T10:08:00.000Z" },
    { name: "strictly after: a run at `after` itself is not next", schedule: "*/15 * * * *", after: "2026-06-01T10:15:00.000Z", zone: "UTC", want: "2026-06-01T10:30:00.000Z" },
    { name: "an hour's rollover", schedule: "*/15 * * * *", after: "2026-06-01T10:50:00.000Z", zone: "UTC", want: "2026-06-01T11:00:00.000Z" },
    { name: "a year's rollover", schedule: "@yearly", after: "2026-06-01T00:00:00Z", zone: "UTC", want: "2027-01-01T00:00:00.000Z" },
    { name: "29 February: the next leap year", schedule: "0 0 29 2 *", after: "2026-03-01T00:00:00Z", zone: "UTC", want: "2028-02-29T00:00:00.000Z" },
    { name: "30 February: never", schedule: "0 0 30 2 *", after: "2026-03-01T00:00:00Z", zone: "UTC", want: undefined },
    { name: "weekdays at 9: Friday to Monday", schedule: "0 9 * * MON-FRI", after: "2026-06-05T09:00:00Z", zone: "UTC", want: "2026-06-08T09:00:00.000Z" },
    { name: "day of month or day of week when both are restricted: Friday the 6th before the 13th", schedule: "0 0 13 * 5", after: "2026-11-01T00:00:00Z", zone: "UTC", want: "2026-11-06T00:00:00.000Z" },
    { name: "day of week alone when the day of month is *: the Friday", schedule: "0 0 * * 5", after: "2026-11-01T00:00:00Z", zone: "UTC", want: "2026-11-06T00:00:00.000Z" },
    { name: "*/2 days is restricted, so either matches: the 3rd before Friday", schedule: "0 0 */2 * 5", after: "2026-11-01T00:00:00Z", zone: "UTC", want: "2026-11-03T00:00:00.000Z" },
    { name: "an empty zone is UTC, as Go reads it", schedule: "0 12 * * *", after: "2026-06-01T00:00:00Z", zone: "", want: "2026-06-01T12:00:00.000Z" },
    { name: "Europe/Berlin in summer is UTC+2", schedule: "0 9 * * *", after: "2026-06-01T00:00:00Z", zone: "Europe/Berlin", want: "2026-06-01T07:00:00.000Z" },
    { name: "Europe/Berlin in winter is UTC+1", schedule: "0 9 * * *", after: "2026-01-15T00:00:00Z", zone: "Europe/Berlin", want: "2026-01-15T08:00:00.000Z" },
    { name: "Asia/Kolkata's half hour", schedule: "0 9 * * *", after: "2026-06-01T00:00:00Z", zone: "Asia/Kolkata", want: "2026-06-01T03:30:00.000Z" },
    { name: "a zone ahead of UTC already on the next day", schedule: "0 1 * * *", after: "2026-06-01T20:00:00Z", zone: "Pacific/Auckland", want: "2026-06-02T13:00:00.000Z" },
    // Berlin springs forward on 29 March 2026: 02:00 CET becomes 03:00 CEST (01:00 UTC).
    { name: "spring forward: 02:30 does not exist on 29 March, so the next is the 30th's", schedule: "30 2 * * *", after: "2026-03-28T12:00:00Z", zone: "Europe/Berlin", want: "2026-03-30T00:30:00.000Z" },
    { name: "spring forward: 01:59 CET runs", schedule: "59 1 * * *", after: "2026-03-28T12:00:00Z", zone: "Europe/Berlin", want: "2026-03-29T00:59:00.000Z" },
    { name: "spring forward: 03:00 CEST comes one minute of UTC after 01:59 CET", schedule: "0 3 * * *", after: "2026-03-29T00:59:00Z", zone: "Europe/Berlin", want: "2026-03-29T01:00:00.000Z" },
    { name: "spring forward: hourly skips the hour that does not exist", schedule: "0 * * * *", after: "2026-03-29T00:00:00Z", zone: "Europe/Berlin", want: "2026-03-29T01:00:00.000Z" },
    { name: "spring forward: the weekday schedule across the change keeps local 09:00", schedule: "0 9 * * MON-FRI", after: "2026-03-27T09:00:00Z", zone: "Europe/Berlin", want: "2026-03-30T07:00:00.000Z" },
    // Berlin falls back on 25 October 2026: 03:00 CEST becomes 02:00 CET (01:00 UTC).
    { name: "fall back: 02:30 CEST, the first 02:30", schedule: "30 2 * * *", after: "2026-10-24T12:00:00Z", zone: "Europe/Berlin", want: "2026-10-25T00:30:00.000Z" },
    { name: "fall back: 02:30 CET, the repeated 02:30, runs too", schedule: "30 2 * * *", after: "2026-10-25T00:30:00Z", zone: "Europe/Berlin", want: "2026-10-25T01:30:00.000Z" },
    { name: "fall back: after the repeat, the next day's", schedule: "30 2 * * *", after: "2026-10-25T01:30:00Z", zone: "Europe/Berlin", want: "2026-10-26T01:30:00.000Z" },
    { name: "fall back: from 02:45 CEST, 02:30 CET comes before 03:00", schedule: "30 2,3 * * *", after: "2026-10-25T00:45:00Z", zone: "Europe/Berlin", want: "2026-10-25T01:30:00.000Z" },
    { name: "fall back: hourly, 02:00 CET after 02:00 CEST", schedule: "0 * * * *", after: "2026-10-25T00:00:00Z", zone: "Europe/Berlin", want: "2026-10-25T01:00:00.000Z" },
    { name: "fall back: hourly, then 03:00 CET", schedule: "0 * * * *", after: "2026-10-25T01:00:00Z", zone: "Europe/Berlin", want: "2026-10-25T02:00:00.000Z" },
    { name: "fall back: a daily run at 01:00 CEST runs once", schedule: "0 1 * * *", after: "2026-10-24T23:00:00Z", zone: "Europe/Berlin", want: "2026-10-26T00:00:00.000Z" },
    // Lord Howe Island falls back by half an hour on 5 April 2026: 02:00 (UTC+11) becomes 01:30 (UTC+10:30).
    { name: "a half-hour fall back: 01:45 at UTC+11", schedule: "45 1 * * *", after: "2026-04-04T12:00:00Z", zone: "Australia/Lord_Howe", want: "2026-04-04T14:45:00.000Z" },
    { name: "a half-hour fall back: 01:45 again at UTC+10:30", schedule: "45 1 * * *", after: "2026-04-04T14:45:00Z", zone: "Australia/Lord_Howe", want: "2026-04-04T15:15:00.000Z" },
    // New York springs forward on 8 March 2026 at 02:00 EST (07:00 UTC).
    { name: "America/New_York: 02:15 is skipped on 8 March", schedule: "15 2 8 3 *", after: "2026-03-01T00:00:00Z", zone: "America/New_York", want: "2027-03-08T07:15:00.000Z" },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(nextRun(c.schedule, new Date(c.after), c.zone)?.toISOString(), c.want));
  }
  it("throws on a schedule that does not parse", () => assert.throws(() => nextRun("bad", new Date(0), "UTC"), /want 5 fields/));
  it("takes a parsed schedule", () => {
    const s = parseSchedule("0 0 * * *");
    assert.ok(!(s instanceof Error));
    assert.equal(nextRun(s, new Date("2026-06-01T05:00:00Z"), "UTC")?.toISOString(), "2026-06-02T00:00:00.000Z");
  });
});

describe("timeZoneError: the names Go's time.LoadLocation takes", () => {
  const cases: { zone: string; want: RegExp | undefined }[] = [
    { zone: "Europe/Berlin", want: undefined },
    { zone: "America/Argentina/Buenos_Aires", want: undefined },
    { zone: "Etc/GMT-1", want: undefined },
    { zone: "UTC", want: undefined },
    { zone: "", want: undefined },
    { zone: "Local", want: undefined },
    { zone: "Mars/Olympus_Mons", want: /unknown time zone Mars\/Olympus_Mons/ },
    { zone: "europe/berlin", want: /case-sensitive: Europe\/Berlin/ },
    { zone: "+01:00", want: /not an offset/ },
    { zone: "-0500", want: /not an offset/ },
    { zone: "CEST", want: /unknown time zone/ },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.zone)}: ${c.want ?? "a zone"}`, () => {
      const got = timeZoneError(c.zone);
      if (c.want === undefined) assert.equal(got, undefined);
      else assert.match(got ?? "(accepted)", c.want);
    });
  }
});
