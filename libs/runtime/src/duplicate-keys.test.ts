import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { isDuplicateKeyError, retryOnDuplicateKey } from './duplicate-keys';

describe('duplicate keys', () => {
  it('recognizes MongoDB, bulk-write and FerretDB duplicate-key errors, nothing else', () => {
    assert.equal(isDuplicateKeyError({ code: 11000 }), true);
    assert.equal(isDuplicateKeyError({ errorResponse: { code: 11000 } }), true);
    assert.equal(isDuplicateKeyError({ writeErrors: [{ code: 11000 }, { code: 11000 }] }), true);
    assert.equal(isDuplicateKeyError(new Error('UNIQUE constraint failed: index')), true);
    assert.equal(isDuplicateKeyError({ writeErrors: [{ code: 11000 }, { code: 2 }] }), false, 'a bulk write that also failed otherwise');
    assert.equal(isDuplicateKeyError(new Error('connection reset')), false);
    assert.equal(isDuplicateKeyError(undefined), false);
  });

  it('repeats an upsert that lost the race, and gives up on other errors or after the attempts', async () => {
    let calls = 0;
    assert.equal(await retryOnDuplicateKey(async () => (++calls < 2 ? Promise.reject({ code: 11000 }) : 'done')), 'done');
    assert.equal(calls, 2);
    calls = 0;
    await assert.rejects(
      retryOnDuplicateKey(async () => (++calls, Promise.reject(new Error('boom')))),
      /boom/,
    );
    assert.equal(calls, 1);
    calls = 0;
    await assert.rejects(retryOnDuplicateKey(async () => (++calls, Promise.reject({ code: 11000 })), 3));
    assert.equal(calls, 3);
  });
});
