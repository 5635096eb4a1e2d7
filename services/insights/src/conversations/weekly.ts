import { WEEKLY_PULSE_WEEKS } from '@quire/contract';

/*
 * Weeks for a cluster's pulse: numbered from the Unix epoch, starting on Mondays 00:00 UTC.
 * A cluster keeps its issue count per week number (only the recent ones); the pulse is read
 * relative to the current week, so it moves on by itself as weeks pass.
 */

const WEEK_MS = 7 * 24 * 3600 * 1000;
/** 1970-01-01 was a Thursday: Monday 1969-12-29 starts week 0. */
const MONDAY_OFFSET_MS = 3 * 24 * 3600 * 1000;

/** The number of the week holding `date`. */
export function weekOf(date: Date | number): number {
  const ms = typeof date === 'number' ? date : date.getTime();
  return Math.floor((ms + MONDAY_OFFSET_MS) / WEEK_MS);
}

/** Whether the week is still inside the pulse of the week `now` is in (or later: clocks differ). */
export function inPulse(week: number, now: Date | number = Date.now()): boolean {
  return week > weekOf(now) - WEEKLY_PULSE_WEEKS;
}

/** The 13 weekly counts, oldest first, ending with the current week. */
export function weeklyPulse(weeks: ReadonlyArray<{ k: number; v: number }>, now: Date | number = Date.now()): number[] {
  const current = weekOf(now);
  const pulse = new Array<number>(WEEKLY_PULSE_WEEKS).fill(0);
  for (const { k, v } of weeks) {
    const index = WEEKLY_PULSE_WEEKS - 1 - (current - k);
    // A week after the current one (an issue dated in the future) counts in the current week.
    if (index >= WEEKLY_PULSE_WEEKS) pulse[WEEKLY_PULSE_WEEKS - 1] += Math.max(0, v);
    else if (index >= 0) pulse[index] += Math.max(0, v);
  }
  return pulse;
}
