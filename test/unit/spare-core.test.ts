import { describe, expect, test } from "bun:test";
import { OTHERS_MAX_CORES, SAMPLE_MS, spareCore, type CpuTimes } from "../../src/embed/spare-core";

/** A machine whose CPU times the test sets: `others` and `own` cores busy since the last step of `ms`. */
function machine() {
  let at = 0;
  const times: CpuTimes = { machine: 0.001, own: 0 };
  return {
    read: () => ({ ...times }),
    now: () => at,
    step(ms: number, others: number, own = 1) {
      at += ms;
      times.machine += (others + own) * ms;
      times.own += own * ms;
    },
  };
}

describe("a spare core for another embedding worker", () => {
  test("none is known before a sample ends; then it depends on what other processes used", () => {
    const m = machine();
    const spare = spareCore(m.read, m.now);
    expect(spare()).toBe(false); // the sample starts
    m.step(SAMPLE_MS, 0.1);
    expect(spare()).toBe(true);
    m.step(SAMPLE_MS, OTHERS_MAX_CORES + 0.2);
    expect(spare()).toBe(false);
    m.step(SAMPLE_MS, 0, 1.8); // this process alone keeps both cores busy: still spare for it
    expect(spare()).toBe(true);
  });

  test("an answer holds for a sample; a reading after a long pause starts a new sample", () => {
    const m = machine();
    const spare = spareCore(m.read, m.now);
    spare();
    m.step(SAMPLE_MS, 0);
    expect(spare()).toBe(true);
    m.step(SAMPLE_MS / 2, 1.5);
    expect(spare()).toBe(true); // the same sample's answer
    m.step(60_000, 0);
    expect(spare()).toBe(false); // an idle minute tells nothing of now
    m.step(SAMPLE_MS, 0);
    expect(spare()).toBe(true);
  });

  test("where CPU times cannot be read, a core is taken to be spare", () => {
    expect(spareCore(() => { throw new Error("no /proc"); })()).toBe(true);
    expect(spareCore(() => ({ machine: 0, own: 0 }))()).toBe(true);
  });
});
