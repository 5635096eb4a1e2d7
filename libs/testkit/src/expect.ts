import assert from 'node:assert/strict';

interface Answer {
  status: number;
  body: any;
}

/** The body of a response that must have `status` (the body is shown when it does not). */
export function expectOk<T extends Answer>(response: T, status = 200): T['body'] {
  assert.equal(response.status, status, JSON.stringify(response.body));
  return response.body;
}

/** The body of any 2xx answer; otherwise throws naming `what` (for scripts that set up data: benches, seeds). */
export function successBody<T extends Answer>(response: T, what: string): T['body'] {
  if (response.status >= 300) throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body).slice(0, 500)}`);
  return response.body;
}

/** An error answer in the API's shape; with `field`, its message must name that field. */
export function expectError(response: Answer, status: number, field?: string): void {
  assert.equal(response.status, status, JSON.stringify(response.body));
  assert.equal(response.body.error.code, status);
  if (!field) return;
  // The field as a whole name: `body` must not be satisfied by `bodyText`.
  const name = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + (/\w$/.test(field) ? '\\b' : '');
  assert.match(response.body.error.message, new RegExp(name), `${response.body.error.message} should name ${field}`);
}

/**
 * Every item passes `check`, and there is at least one: `.every()` on an empty list is true,
 * so a check written with it alone passes when the list came back empty by mistake.
 */
export function expectEvery<T>(items: Iterable<T> | undefined, check: (item: T) => boolean, message = 'every item'): void {
  const list = [...(items ?? [])];
  assert.ok(list.length > 0, `${message}: the list is empty`);
  const failing = list.findIndex((item) => !check(item));
  assert.equal(failing, -1, `${message}: item ${failing} fails: ${JSON.stringify(list[failing])?.slice(0, 300)}`);
}
