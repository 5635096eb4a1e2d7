import { performance } from 'node:perf_hooks';
import { dispatchRequest, type IntegrationEnvironment } from './dispatch';
import { resetEngine } from './engine';
import { runScript } from './run';

/** Wall times (ms) of one event's run: the first, and the next `runs` ones. */
export interface ScriptRunTimes {
  cold: number;
  reused: number[];
}

const ENVIRONMENT: IntegrationEnvironment = {
  apiEndpoint: 'http://127.0.0.1:9',
  apiTokens: { integration: 'integration-token', installation: 'installation-token' },
  integration: { name: 'bench-integration', version: 1 },
  installation: { id: 'inst_bench', status: 'active', configuration: {} },
  secrets: {},
  signingSecrets: { integration: 'signing-secret' },
};

/**
 * For `npm run bench -- scripts` (tools/stack): an installation_setup event delivered to `script`
 * (an ES module with a default `fetch` handler) `runs + 1` times in the sandbox, the first cold
 * (the engine's wasm compiled and instantiated first), the others with the compiled module reused;
 * and the floor, the least such a run costs: the same module imported and called by node itself.
 */
export async function measureScriptRuns(script: string, runs: number): Promise<{ sandbox: ScriptRunTimes; floor: ScriptRunTimes }> {
  const request = await dispatchRequest({
    event: { eventId: 'evt_bench', type: 'installation_setup', installationId: 'inst_bench', status: 'active' },
    environment: ENVIRONMENT,
  });
  const timed = async (run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    return performance.now() - started;
  };
  const times = async (run: () => Promise<unknown>): Promise<ScriptRunTimes> => {
    const cold = await timed(run);
    const reused: number[] = [];
    for (let i = 0; i < runs; i++) reused.push(await timed(run));
    return { cold, reused };
  };

  resetEngine();
  const sandbox = await times(async () => {
    const result = await runScript({ script, request });
    if (result.error || result.response?.status !== 200) throw new Error(`the script's run failed: ${result.error ?? result.response?.status}`);
  });

  // A module of its own URL each time (node keeps an imported one): the floor's first run compiles it.
  const url = `data:text/javascript;base64,${Buffer.from(`${script}\n// ${Date.now()}`).toString('base64')}`;
  let handler: { fetch(request: Request): Promise<Response> } | undefined;
  const floor = await times(async () => {
    handler ??= ((await import(url)) as { default: NonNullable<typeof handler> }).default;
    const answer = await handler.fetch(new Request(request.url, { method: request.method, headers: request.headers, body: request.body }));
    if (answer.status !== 200) throw new Error(`the floor's run answered ${answer.status}`);
    await answer.arrayBuffer();
  });
  return { sandbox, floor };
}
