import type { StageTimer } from "../domain/ports";
import { recallStageDuration } from "./registry";

/** Recall's stage timer (the domain's StageTimer port): each stage into engram_recall_stage_duration_seconds. */
export const recallTimer: StageTimer = {
  time(stage, work) {
    const done = recallStageDuration.startTimer({ stage });
    const result = work();
    if (result instanceof Promise) {
      result.then(() => done(), () => done());
      return result;
    }
    done();
    return result;
  },
};
