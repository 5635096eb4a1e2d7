import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { runOutcome, runScript, type RunLimits, type RunResult } from '.';

/**
 * Scripts that try to hurt the host or get out of the sandbox. Each must end with a clear error
 * (or fail inside the sandbox), within its limit, and leave the runtime able to run the next
 * script.
 */
const request = { method: 'POST', url: 'https://integrations.quire.invalid/v1', headers: [] as Array<[string, string]> };
const handler = (body: string) => `export default { async fetch(request, env, ctx) { ${body} } };`;
const run = (script: string, limits?: Partial<RunLimits>) => runScript({ script, request, limits });
const text = (result: RunResult) => Buffer.from(result.response?.body ?? []).toString('utf8');

async function assertStillWorks(): Promise<void> {
  const result = await run(handler(`console.log('fine'); return new Response('still here');`));
  assert.equal(result.error, undefined);
  assert.equal(result.response?.status, 200);
  assert.equal(text(result), 'still here');
  assert.deepEqual(
    result.logs.map((log) => log.message),
    ['fine'],
  );
}

describe('hostile scripts', () => {
  it('stops an infinite loop at the CPU limit, in the handler, at load, in a timer and in a microtask loop', async () => {
    const cases = [
      handler('for (;;) {}'),
      'for (;;) {}\nexport default {};',
      handler('setTimeout(() => { for (;;) {} }, 1); return new Promise(() => {});'),
      handler('for (;;) await null;'),
      handler('try { for (;;) {} } catch { return new Response("caught it"); }'),
    ];
    for (const script of cases) {
      const result = await run(script, { cpuTimeMs: 200 });
      assert.equal(result.error, 'CPU time limit exceeded (200 ms)', script);
      assert.equal(runOutcome(result), 'timeout', 'counted as a timeout (quire_script_runs_total)');
      assert.equal(result.response, undefined);
      assert.ok(result.durationMs < 10_000, `${script}: ${result.durationMs} ms`); // far below the 30 s wall clock: the CPU limit ended it
      await assertStillWorks();
    }
  });

  it('ends a run that waits past the wall-clock limit', async () => {
    const result = await run(handler('await new Promise((resolve) => setTimeout(resolve, 60_000)); return new Response("late");'), { wallTimeMs: 300 });
    assert.equal(result.error, 'wall-clock time limit exceeded (300 ms)');
    assert.equal(runOutcome(result), 'timeout');
    assert.ok(result.durationMs < 10_000);
    await assertStillWorks();
  });

  it('stops a huge allocation at the memory limit, even when the script catches it', async () => {
    const cases = [
      handler(`return new Response('x'.repeat(2 ** 28));`),
      handler('const hoard = []; for (;;) hoard.push(new Array(100_000).fill(hoard.length));'),
      handler(`try { 'x'.repeat(2 ** 28); } catch (error) { console.log('caught', String(error)); } return new Response('survived');`),
      handler('const buffer = new ArrayBuffer(512 * 1024 * 1024); return new Response(String(buffer.byteLength));'),
    ];
    for (const script of cases) {
      const result = await run(script, { memoryBytes: 32 * 1024 * 1024 });
      assert.match(result.error ?? '', /^Memory limit exceeded \(32 MiB\)/, script);
      assert.equal(runOutcome(result), 'memory', 'counted as memory (quire_script_runs_total)');
      assert.equal(result.response, undefined, script);
      await assertStillWorks();
    }
  });

  it('turns a stack overflow into an error, and survives one deep inside the engine', async () => {
    const recursion = await run(handler('function deeper(n) { return deeper(n + 1) + 1; } deeper(0);'));
    assert.match(recursion.error ?? '', /^The handler failed: (RangeError: Maximum call stack size exceeded|InternalError: stack overflow)/);
    await assertStillWorks();

    // The parser recurses in C: this exhausts node's own stack before QuickJS's count does.
    const parser = await run(handler(`eval('('.repeat(200_000));`));
    assert.ok(parser.error, 'the run fails');
    assert.equal(parser.response, undefined);
    await assertStillWorks();
  });

  it('has no process, require, filesystem or module loading, whichever way it is asked for', async () => {
    const attempts: Array<[string, RegExp]> = [
      [handler('process.exit(1);'), /ReferenceError: process is not defined/],
      [handler(`require('node:fs').readFileSync('/etc/passwd');`), /ReferenceError: require is not defined/],
      [handler(`globalThis.constructor.constructor('return process')().exit(1);`), /ReferenceError: process is not defined/],
      [handler(`Function('return this')().process.mainModule.require('child_process');`), /TypeError: cannot read property 'mainModule' of undefined/],
      [handler(`return (async () => {}).constructor('return process')();`), /ReferenceError: process is not defined/],
      [handler(`const fs = await import('node:fs'); return new Response(String(fs));`), /could not load module 'node:fs'/],
      [`import { readFileSync } from 'fs';\n${handler('return new Response(readFileSync("/etc/passwd"));')}`, /could not load module 'fs'/],
      [handler(`__quire_host.fetch(1, 'GET', 'http://127.0.0.1/', '[]');`), /ReferenceError: __quire_host is not defined/],
    ];
    for (const [script, expected] of attempts) {
      const result = await run(script);
      assert.match(result.error ?? '', expected, script);
      assert.equal(result.response, undefined, script);
      await assertStillWorks();
    }

    const globals = await run(
      handler(
        `return Response.json(['process', 'require', 'module', 'global', 'Deno', 'Bun', 'std', 'os', '__quire_host', '__quire_guest'].filter((name) => globalThis[name] !== undefined));`,
      ),
    );
    assert.equal(text(globals), '[]');
  });

  it('reports a thrown exception, an unhandled rejection, a handler that never answers, and a script without a handler', async () => {
    const thrown = await run(handler(`throw new TypeError('boom');`));
    assert.match(thrown.error ?? '', /^The handler failed: TypeError: boom\n {4}at fetch \(script\.js:1:\d+\)/);

    const rejected = await run(handler(`await Promise.reject(new Error('nope'));`));
    assert.match(rejected.error ?? '', /^The handler failed: Error: nope/);

    const background = await run(handler(`ctx.waitUntil(Promise.reject(new Error('later'))); return new Response('answered');`));
    assert.equal(background.response?.status, 200);
    assert.match(background.logs.at(-1)?.message ?? '', /^Uncaught \(in waitUntil\) Error: later/);

    const pending = await run(handler('return new Promise(() => {});'));
    assert.match(pending.error ?? '', /^The handler never answered/);
    assert.ok(pending.durationMs < 5_000);

    const noHandler = await run('export const answer = 42;');
    assert.match(noHandler.error ?? '', /has no `export default \{ fetch\(request, env, ctx\) \}` handler/);

    const notAResponse = await run(handler('return "OK";'));
    assert.match(notAResponse.error ?? '', /did not return a Response/);

    const syntax = await run('export default { fetch( }');
    assert.match(syntax.error ?? '', /^The script failed to load: SyntaxError/);
    await assertStillWorks();
  });

  it('keeps nothing from one run to the next', async () => {
    const polluter = await run(
      handler(
        `globalThis.leaked = 'yes'; Object.prototype.polluted = 'yes'; Array.prototype.push = () => 0; JSON.parse = () => 'owned'; return new Response('done');`,
      ),
    );
    assert.equal(polluter.response?.status, 200);
    const observer = await run(handler(`return Response.json([typeof leaked, typeof ({}).polluted, [1].push(2), JSON.parse('"clean"')]);`));
    assert.equal(text(observer), '["undefined","undefined",2,"clean"]');
  });

  it('runs scripts concurrently, each in its own sandbox', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        run(
          handler(
            `globalThis.mine = ${i}; await new Promise((resolve) => setTimeout(resolve, ${20 * (5 - i)})); return new Response(String(globalThis.mine));`,
          ),
        ),
      ),
    );
    assert.deepEqual(results.map(text), ['0', '1', '2', '3', '4']);
  });

  it('bounds the logs: count and line length', async () => {
    const result = await run(handler(`for (let i = 0; i < 1000; i++) console.log('line', i, 'x'.repeat(100)); return new Response('ok');`), {
      maxLogEntries: 10,
      maxLogLineLength: 20,
    });
    assert.equal(result.response?.status, 200);
    assert.equal(result.logs.length, 11);
    assert.equal(result.logs[0].message, 'line 0 xxxxxxxxxxxxx');
    assert.deepEqual(result.logs[10], { ...result.logs[10], level: 'warn', message: 'Log limit reached (10 lines): later lines were dropped.' });
  });

  it('reports a non-2xx answer as it is, and refuses an oversized body', async () => {
    const unavailable = await run(handler(`return new Response('try later', { status: 503, headers: { 'retry-after': '5' } });`));
    assert.equal(unavailable.error, undefined);
    assert.equal(unavailable.response?.status, 503);
    assert.deepEqual(
      new Map(unavailable.response?.headers),
      new Map([
        ['content-type', 'text/plain;charset=UTF-8'],
        ['retry-after', '5'],
      ]),
    );

    const oversized = await run(handler(`return new Response('x'.repeat(2048));`), { maxBodyBytes: 1024 });
    assert.match(oversized.error ?? '', /Body too large: 2048 bytes, 1024 at most/);
  });
});
