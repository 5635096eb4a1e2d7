import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { inPulse, weekOf, weeklyPulse } from './weekly';

describe('weekly pulse', () => {
  const now = new Date('2025-06-11T12:00:00Z'); // a Wednesday
  it('numbers weeks from Monday 00:00 UTC', () => {
    assert.equal(weekOf(new Date('2025-06-09T00:00:00Z')), weekOf(now));
    assert.equal(weekOf(new Date('2025-06-08T23:59:59Z')), weekOf(now) - 1);
  });

  it('gives 13 counts, oldest first, ending with the current week', () => {
    const current = weekOf(now);
    const pulse = weeklyPulse(
      [
        { k: current, v: 2 },
        { k: current - 1, v: 1 },
        { k: current - 12, v: 4 },
        { k: current - 13, v: 9 },
        { k: current + 1, v: 1 },
      ],
      now,
    );
    assert.equal(pulse.length, 13);
    assert.deepEqual(pulse, [4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3]);
    assert.equal(inPulse(current - 12, now), true);
    assert.equal(inPulse(current - 13, now), false);
  });
});
