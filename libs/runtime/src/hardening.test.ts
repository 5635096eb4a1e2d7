import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { checkExpression } from './expressions';
import { isUnavailableError } from './faults';
import { nulFieldName, nulPath } from './nul';

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

describe('NUL characters in input', () => {
  it('finds the first string or key holding one, at any depth, and nothing in clean or binary values', () => {
    assert.deepEqual(nulPath({ title: 'a\u0000b' }), ['title']);
    assert.deepEqual(nulPath({ a: 'ok', b: [{ c: 'ok' }, { d: { e: '\u0000' } }], z: '\u0000' }), ['b', 1, 'd', 'e']);
    assert.deepEqual(nulPath({ first: '\u0000', second: '\u0000' }), ['first']);
    assert.deepEqual(nulPath({ nested: { 'k\u0000': 1 } }), ['nested', 'k\u0000']);
    assert.deepEqual(nulPath('\u0000'), []);
    assert.equal(nulPath({ a: 'fine', n: 0, b: null, t: true, list: ['x', 1] }), undefined);
    assert.equal(nulPath({ bytes: Buffer.from([0, 0, 0]), view: new Uint8Array(4) }), undefined);
    let deep: unknown = '\u0000';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    assert.equal(nulPath(deep)?.length, 20_000, 'iterative: no stack overflow');
  });

  it('names the field as messages do, the NUL shown escaped', () => {
    assert.equal(nulFieldName(['items', 2, 'name'], 'body'), 'items.2.name');
    assert.equal(nulFieldName([], 'query'), 'query');
    assert.equal(nulFieldName(['k\u0000'], 'body'), 'k\\0');
  });
});
