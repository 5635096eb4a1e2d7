import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { idOfKey, newId } from './ids';

describe('ids', () => {
  it('makes random ids of 20 base62 characters', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId()));
    assert.equal(ids.size, 1000);
    for (const id of ids) assert.match(id, /^[0-9A-Za-z]{20}$/);
  });

  it('derives the same id from the same key, shaped like a random one, and different ids from different keys', () => {
    assert.equal(idOfKey('org\ntranslation:1'), idOfKey('org\ntranslation:1'));
    assert.match(idOfKey('org\ntranslation:1'), /^[0-9A-Za-z]{20}$/);
    assert.match(idOfKey('x', 100), /^[0-9A-Za-z]{100}$/);
    const ids = new Set(Array.from({ length: 1000 }, (_, i) => idOfKey(`org\ntranslation:${i}`)));
    assert.equal(ids.size, 1000);
    assert.notEqual(idOfKey('a'), idOfKey('b'));
  });
});
