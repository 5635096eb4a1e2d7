import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { checkExpression } from './expressions';
import { isUnavailableError } from './faults';

const rules = { roots: { visitor: false, space: true }, binary: new Set(['&&', '||', '==', '!=']) };

describe('expressions are bounded before any recursive walk', () => {
  it('refuses deep brackets and stacked unary operators with a message, never a stack overflow', () => {
    for (const source of ['('.repeat(1000) + 'space' + ')'.repeat(1000), '!'.repeat(1000) + 'space', '['.repeat(600)]) {
      const checked = checkExpression(source, rules);
      assert.equal(checked.ok, false);
      assert.match((checked as { message: string }).message, /nested more than \d+ levels deep/);
    }
  });

  it('still accepts ordinary conditions, brackets inside strings included', () => {
    assert.equal(checkExpression('visitor.claims.plan == "(((((((((((((((((((((((((((((((((((x"', rules).ok, true);
    assert.equal(checkExpression('(visitor.a == 1 || visitor.b != 2) && !(space.x == 3)', rules).ok, true);
  });
});

describe('datastore faults', () => {
  it('recognises a lost database or Redis connection, and nothing else', () => {
    const named = (name: string, message = 'x') => Object.assign(new Error(message), { name });
    assert.equal(isUnavailableError(named('MongoServerSelectionError')), true);
    assert.equal(isUnavailableError(named('MongoNetworkError')), true);
    assert.equal(isUnavailableError(new Error('Connection is closed.')), true);
    assert.equal(isUnavailableError(named('MaxRetriesPerRequestError')), true);
    assert.equal(isUnavailableError(named('PoolClearedOnNetworkError')), true);
    // The driver lets an EPIPE on a socket the datastore closed through unwrapped.
    assert.equal(isUnavailableError(Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' })), true);
    assert.equal(isUnavailableError(new Error('wrapped', { cause: named('MongoNetworkError') })), true);
    assert.equal(isUnavailableError(new Error('wrapped', { cause: new Error('boom') })), false);
    assert.equal(isUnavailableError(new Error('boom')), false);
    assert.equal(isUnavailableError(named('MongoServerError', 'E11000 duplicate key')), false);
  });
});
