import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { assertMatchesOpenApi, openApiErrors } from './openapi';

describe('OpenAPI conformance helper', () => {
  const user = { object: 'user', id: 'u1', displayName: 'Ada', email: 'ada@example.com', urls: { location: 'http://127.0.0.1:8080/v1/users/u1' } };

  it('accepts a conforming body', () => {
    assert.deepEqual(openApiErrors('User', user), []);
  });

  it('names what is wrong with a body that does not conform', () => {
    const errors = openApiErrors('User', { ...user, object: 'member', urls: {} });
    assert.ok(errors.some((e) => e.includes('/object')));
    assert.ok(errors.some((e) => e.includes('/urls') && e.includes('location')));
    assert.throws(() => assertMatchesOpenApi('User', { id: 1 }), /does not match OpenAPI User/);
  });
});
