import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, it } from '@jest/globals';
import { ScriptPool, ScriptPoolBusyError, type HostFetch, type RunLimits, type RunResult } from '.';

/**
 * The pool of script workers, driven from this (main) thread: guest code never runs here. The
 * workers load the service's build (dist/runtime/worker.js): build it before running this.
 */
const request = { method: 'POST', url: 'https://integrations.quire.invalid/v1', headers: [] as Array<[string, string]> };
const handler = (body: string) => `export default { async fetch(request, env, ctx) { ${body} } };`;
const text = (result: RunResult) => Buffer.from(result.response?.body ?? []).toString('utf8');

describe('script pool: guest code on worker threads', () => {
  const pool = new ScriptPool({ threads: 2, heapMb: 64, maxQueue: 1 });
  const run = (body: string, limits?: Partial<RunLimits>, hostFetch?: HostFetch) => pool.run({ script: handler(body), request, limits, hostFetch });

  afterAll(() => pool.close());

  it('ends an endless loop and a memory bomb as failed runs without holding up the main thread, and replaces the bomb’s worker', async () => {
    // Both workers up and warm first: their start is not what is measured.
    await Promise.all([run(`return new Response('warm');`), run(`return new Response('warm');`)]);
    const before = await pool.threadIds();
    assert.equal(before.length, 2);

    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    const [loop, bomb] = await Promise.all([
      run('for (;;) {}', { cpuTimeMs: 300 }),
      // Near the memory limit QuickJS collects on every allocation, inside one native call that its
      // interrupt handler never sees: ~20 s in the worker, unless the main thread ends it.
      run('const hoard = []; for (;;) hoard.push(new Array(1e6).fill(7));', { cpuTimeMs: 300 }),
    ]);
    const elapsed = performance.now() - started;
    delay.disable();

    assert.equal(loop.error, 'CPU time limit exceeded (300 ms)', 'the interrupt handler ends the loop, in its worker');
    assert.equal(bomb.error, 'CPU time limit exceeded (300 ms): the run was ended by stopping its worker thread');
    assert.ok(elapsed < 10_000, `${Math.round(elapsed)} ms`);
    const maxDelayMs = delay.max / 1e6;
    // A run on this thread would have held it for the whole run (the bomb's ~20 s).
    assert.ok(maxDelayMs < Math.min(500, elapsed / 2), `event loop delay ${Math.round(maxDelayMs)} ms over ${Math.round(elapsed)} ms`);

    const after = await pool.threadIds();
    assert.equal(after.length, 2, 'the terminated worker was replaced');
    assert.equal(after.filter((id) => !before.includes(id)).length, 1, `workers before ${before}, after ${after}`);
    const next = await run(`return new Response('still here');`);
    assert.equal(text(next), 'still here');
  });

  it('ends a run past its wall-clock budget by terminating its worker, when the worker cannot end it itself', async () => {
    // All the CPU it wants, so that only the wall clock is left, and a thread too busy for its own timers.
    const result = await run('for (;;) {}', { cpuTimeMs: 60_000, wallTimeMs: 500 });
    assert.equal(result.error, 'wall-clock time limit exceeded (500 ms): the run was ended by stopping its worker thread');
    assert.ok(result.durationMs < 5_000, `${Math.round(result.durationMs)} ms`);
    assert.equal(text(await run(`return new Response('ok');`)), 'ok');
  });

  it("does the script's fetch on the main thread's hostFetch, and aborts it when the run ends", async () => {
    const seen: Array<{ method: string; url: string; body: string; header: string | null }> = [];
    let hanging: AbortSignal | undefined;
    const hostFetch: HostFetch = async (outgoing) => {
      // Kept before any await: the hanging fetch is asked for first, so it is known by the time the other one answers.
      if (outgoing.url.endsWith('/hang')) {
        hanging = outgoing.signal;
        return new Promise(() => {});
      }
      seen.push({ method: outgoing.method, url: outgoing.url, body: await outgoing.text(), header: outgoing.headers.get('x-test') });
      return new Response('from the host', { status: 201, headers: { 'x-answer': 'yes' } });
    };
    const result = await run(
      `fetch('https://api.example.com/hang').catch(() => {});
       const answer = await fetch('https://api.example.com/things', { method: 'POST', body: 'payload', headers: { 'x-test': 'one' } });
       return new Response(answer.status + ' ' + answer.headers.get('x-answer') + ' ' + (await answer.text()));`,
      {},
      hostFetch,
    );
    assert.equal(result.error, undefined);
    assert.equal(text(result), '201 yes from the host');
    assert.deepEqual(seen[0], { method: 'POST', url: 'https://api.example.com/things', body: 'payload', header: 'one' });
    assert.equal(hanging?.aborted, true, 'the fetch still in flight was aborted with the run');

    const refused = await run(`try { await fetch('https://api.example.com/'); } catch (error) { return new Response(String(error)); }`);
    assert.match(text(refused), /TypeError: fetch is not available/);
  });

  it('refuses a run at once when every worker is busy and the queue is full', async () => {
    const slow = () => run('await new Promise((resolve) => setTimeout(resolve, 500)); return new Response("slow");');
    // 2 workers + 1 waiting: the fourth is refused.
    const accepted = [slow(), slow(), slow()];
    await assert.rejects(slow(), ScriptPoolBusyError);
    for (const result of await Promise.all(accepted)) assert.equal(text(result), 'slow');
  });
});
