import { describe, expect, test } from "bun:test";
import { isIsoDateTime } from "../../src/domain/memory";

/** The check as written with a regular expression and Date.UTC alone: the reference the fast path of stored timestamps must match. */
function reference(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/i.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offH = 0, offM = 0] = m.slice(1).map((v) => (v === undefined ? undefined : Number(v))) as number[];
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysInMonth && hour! <= 23 && minute! <= 59 && second! <= 59 && offH <= 23 && offM <= 59;
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

describe("date-time check", () => {
  test("every stored timestamp of years 0000–9999 is accepted, as the reference accepts it", () => {
    // from 0000-01-01 to 9999-12-31, about every 37 days at a drifting time of day
    for (let ms = -62167219200000; ms < 253402300799999; ms += 86_400_000 * 37 + 3_601_001) {
      const value = new Date(ms).toISOString();
      if (value.length !== 24) continue;
      expect([value, isIsoDateTime(value)]).toEqual([value, reference(value)]);
    }
  });

  test("in the stored form, every day, month, hour, minute and second on and past its limits answers as the reference", () => {
    const values: string[] = [];
    for (const year of [0, 4, 99, 100, 400, 1900, 1999, 2000, 2023, 2024, 2100, 9999]) {
      for (let month = 0; month <= 13; month++) {
        for (const day of [0, 1, 28, 29, 30, 31, 32]) values.push(`${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T12:30:45.123Z`);
      }
    }
    for (const [h, m, s] of [[0, 0, 0], [23, 59, 59], [24, 0, 0], [23, 60, 0], [23, 59, 60], [99, 99, 99]]) values.push(`2024-02-29T${pad(h!, 2)}:${pad(m!, 2)}:${pad(s!, 2)}.000Z`);
    for (const value of values) expect([value, isIsoDateTime(value)]).toEqual([value, reference(value)]);
  });

  test("other forms and near misses of the stored one answer as the reference", () => {
    const values = [
      "2024-05-01T10:00:00Z", "2024-05-01T10:00:00.1Z", "2024-05-01T10:00:00.123456789Z", "2024-05-01t10:00:00.000z", "2024-05-01T10:00:00.000+02:00",
      "2024-05-01T10:00:00.000-23:59", "2024-05-01T10:00:00.000+24:00", "2024-05-01", "2024-05-01T10:00:00.000", "2024-05-01T10:00:00.000ZZ",
      "2024-05-01T10:00:00.00aZ", "2024-05-01T10:00:00,000Z", "2024-05-01 10:00:00.000Z", "2024-5-01T10:00:00.000Z", "+02024-05-01T10:00:00.000Z",
      "2024-05-01T10:00:00.000\u0000", "2024-05-01T1a:00:00.000Z", "２０２４-05-01T10:00:00.000Z", "", "not a date at all, 24 ch",
    ];
    for (const value of values) expect([value, isIsoDateTime(value)]).toEqual([value, reference(value)]);
  });
});
