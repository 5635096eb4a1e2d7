import { checkingFetch } from '../contract';

/**
 * jest `setupFiles` of every package (jest-preset.js), run in each test file's sandbox.
 *
 * jest runs a test file in a realm of its own, but `fetch` is node's, shared with the worker:
 * what `response.json()` returns (to the test, to @gitbook/api) is made of the worker's arrays
 * and objects, and node:assert's deepStrictEqual, which compares prototypes, then finds
 * `['a']` and `['a']` different. Bodies are parsed here instead, in the test file's realm.
 */
const hostFetch = globalThis.fetch;

// And every answer from Quire is checked against what Quire says it answers (../contract).
globalThis.fetch = checkingFetch(async function fetch(input: Parameters<typeof hostFetch>[0], init?: Parameters<typeof hostFetch>[1]): Promise<Response> {
  const response = await hostFetch(input, init);
  Object.defineProperty(response, 'json', { configurable: true, value: async () => JSON.parse(await response.text()) });
  return response;
});
