/**
 * Guest side. Hands the host's request to the script's `fetch(request, env, ctx)` handler, the
 * Workers module signature @gitbook/runtime's createIntegration implements, and reports what it
 * answered (or why it did not) to the host.
 */
import { describeError, host, json } from './host';

interface ScriptModule {
  default?: { fetch?: (request: Request, env: unknown, ctx: unknown) => unknown };
}

async function run(script: ScriptModule | Promise<ScriptModule>, method: string, url: string, headers: string, body: ArrayBuffer | undefined, env: string) {
  const handler = (await script).default;
  if (!handler || typeof handler.fetch !== 'function') throw new TypeError('The script has no `export default { fetch(request, env, ctx) }` handler.');

  // Workers let work outlive the response through ctx.waitUntil: the run waits for it too.
  const background: Promise<unknown>[] = [];
  const ctx = {
    waitUntil: (promise: unknown) => void background.push(Promise.resolve(promise)),
    passThroughOnException: () => {},
  };
  const request = new Request(url, { method, headers: json.parse(headers), body });
  const response = (await handler.fetch(request, json.parse(env), ctx)) as Response;
  if (!response || typeof response.status !== 'number' || typeof response.arrayBuffer !== 'function') {
    throw new TypeError('The fetch handler did not return a Response.');
  }
  const bytes = await response.arrayBuffer();
  for (const outcome of await Promise.allSettled(background)) {
    if (outcome.status === 'rejected') console.error(`Uncaught (in waitUntil) ${describeError(outcome.reason)}`);
  }
  host.respond(response.status, json.stringify([...response.headers]), bytes);
}

/** Called once by the host, with the script's module namespace (or the promise of it). */
export function dispatch(
  script: ScriptModule | Promise<ScriptModule>,
  method: string,
  url: string,
  headers: string,
  body: ArrayBuffer | undefined,
  env: string,
): void {
  run(script, method, url, headers, body, env).catch((error: unknown) => host.fail(describeError(error)));
}
