import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { declareCache } from '@quire/runtime';
import { testBackendConfig, testEnvironment, type TestEnvironment } from '@quire/testkit';
import { startBackendService } from './service';

/*
 * The caches a service's modules declare are made by startBackendService for each instance:
 * two instances in one process keep apart, and each reports its own at GET /metrics.
 */

const declared = { pages: declareCache<string>(4), indexes: declareCache<{ id: string }>(12) };
const MB = 1024 * 1024;

describe('service caches', () => {
  let env: TestEnvironment;
  const stops: Array<() => Promise<void>> = [];
  const start = async (budgetMb?: number) => {
    const service = await startBackendService({
      name: 'probe',
      config: testBackendConfig(env, { CACHE_BUDGET_MB: budgetMb }),
      models: () => {},
      caches: declared,
      handleSignals: false,
    });
    stops.push(service.stop);
    return service;
  };
  const metrics = async (port: number) => {
    const answer = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/plain/);
    return answer.text();
  };

  beforeAll(async () => {
    env = await testEnvironment();
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  it('are made per instance, within CACHE_BUDGET_MB, and reported at /metrics', async () => {
    const [first, second] = await Promise.all([start(), start(8)]);
    first.context.caches.pages.set('home', 'rendered', 100);
    assert.equal(first.context.caches.pages.get('home'), 'rendered');
    assert.equal(second.context.caches.pages.get('home'), undefined, 'the other instance keeps its own');
    assert.equal(first.context.caches.indexes.maxWeight, 12 * MB, 'the declared size, without a budget');
    assert.equal(second.context.caches.indexes.maxWeight, 6 * MB, "CACHE_BUDGET_MB split in the declared sizes' proportions");

    const [mine, theirs] = await Promise.all([metrics(first.httpPort), metrics(second.httpPort)]);
    for (const line of ['quire_cache_entries{cache="pages"} 1', 'quire_cache_hits_total{cache="pages"} 1', 'quire_cache_fill_bytes{cache="pages"} 100'])
      assert.ok(mine.includes(line), `${line} in\n${mine}`);
    for (const line of [
      'quire_cache_entries{cache="pages"} 0',
      'quire_cache_misses_total{cache="pages"} 1',
      `quire_cache_budget_bytes{cache="pages"} ${2 * MB}`,
    ])
      assert.ok(theirs.includes(line), `${line} in\n${theirs}`);
  });
});
