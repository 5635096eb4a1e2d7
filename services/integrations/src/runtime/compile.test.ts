import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { compileScript } from '.';

describe('compileScript', () => {
  it('accepts a module with a fetch handler', async () => {
    assert.deepEqual(await compileScript('export default { async fetch(request) { return new Response("ok"); } };'), { ok: true });
  });

  it("gives the compiler's message for a syntax error, with line and column", async () => {
    const result = await compileScript('export default {\n  fetch(request {\n    return 1;\n  }\n};');
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.message, /^SyntaxError: .+\n {4}at script\.js:2:\d+/);
  });

  it('refuses a script that imports a module: sandboxes load none', async () => {
    const result = await compileScript("import fs from 'node:fs';\nexport default { fetch() { return fs; } };");
    assert.deepEqual(result, { ok: false, message: "ReferenceError: could not load module 'node:fs'" });
  });

  it('does not run the script', async () => {
    // Would never end, and would fail on `process`, if it ran.
    assert.deepEqual(await compileScript('process.exit(1); for (;;) {}\nexport default {};'), { ok: true });
  });
});
