import assert from 'node:assert/strict';
import { it } from '@jest/globals';
import { expectOk, type ApiClient, type TestOrganization, type TestStack } from '@quire/testkit';

/*
 * Test cases of an integration's public endpoint under hostile scripts and load: the answer
 * rebuilt from an allow-list, scripts off the service's main thread, and each tenant's share.
 * They run on the stack of events.e2e.test.ts (no stack of their own), which starts it with
 * SCRIPT_TIMEOUT_MS=1000, and the limits below.
 */
export const LIMITS_ENV = {
  // One worker per run the organization may have at once: no run of the test waits for a worker.
  SCRIPT_WORKERS: '3',
  SCRIPT_CONCURRENCY_PER_INTEGRATION: '2',
  SCRIPT_CONCURRENCY_PER_ORGANIZATION: '3',
  INTEGRATION_ENDPOINT_RATE_PER_MINUTE: '15',
  // Eight endless loops' worth (each stops at SCRIPT_TIMEOUT_MS, 1 s): above what the other cases spend per organization.
  ENDPOINT_SCRIPT_CPU_MS_PER_MINUTE: '8000',
};

/** The script of every integration here: what it answers depends on the last part of the path it is called at. */
const SCRIPT = `export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    if (event.type !== 'fetch') return new Response('ok');
    const kind = new URL(event.request.url).pathname.split('/').pop();
    // A Response look-alike: the real one refuses most of what a hostile script answers.
    const raw = (status, headers) => ({ status, headers, arrayBuffer: async () => new TextEncoder().encode('answered ' + kind).buffer });
    const status = /^status-(\\d+)$/.exec(kind);
    if (status) return raw(Number(status[1]), [['content-type', 'text/plain']]);
    switch (kind) {
      case 'cookies':
        return raw(200, [['Set-Cookie', 'a=1'], ['set-cookie', 'b=2'], ['SET-COOKIE', 'c=3'], ['Clear-Site-Data', '"*"'], ['Content-Type', 'text/plain'], ['Cache-Control', 'no-store'], ['X-Other', 'dropped']]);
      case 'crlf': return raw(200, [['content-type', 'text/plain\\r\\nSet-Cookie: a=1']]);
      case 'huge-header': return raw(200, [['cache-control', 'x'.repeat(100 * 1024)]]);
      case 'huge-other-header': return raw(200, [['x-huge', 'x'.repeat(100 * 1024)], ['content-type', 'text/plain']]);
      case 'not-pairs': return raw(200, 'not pairs');
      case 'stringify':
        JSON.stringify = () => 'nonsense';
        return new Response('still sane', { headers: { 'content-type': 'text/plain' } });
      case 'redirect': return new Response(null, { status: 302, headers: { location: 'https://example.com/done' } });
      case 'script-redirect': return raw(302, [['location', 'javascript:alert(1)']]);
      case 'loop': for (;;) {}
      case 'bomb': { const hoard = []; for (;;) hoard.push(new Array(1e6).fill(7)); }
      case 'slow': await new Promise((resolve) => setTimeout(resolve, 2000)); return new Response('slow done');
      default: return new Response('fine');
    }
  },
};`;

export function publicEndpointLimitCases(the: () => { stack: TestStack; vendor: TestOrganization<'read'>; customer: TestOrganization<'read'> }): void {
  const publish = async (owner: { organizationId: string; api: ApiClient }, name: string) => {
    const body = {
      organization: owner.organizationId,
      title: name,
      description: 'Answers at its endpoint',
      scopes: [],
      script: SCRIPT,
      visibility: 'unlisted',
    };
    return expectOk(await owner.api.post(`/v1/integrations/${name}`, body)).urls.publicEndpoint as string;
  };
  const errorOf = async (answer: Response) => ((await answer.json()) as { error: { message: string } }).error.message;
  /** The status of a call, its body read (no connection is left waiting on it). */
  const statusOf = async (url: string, init?: RequestInit) => {
    const answer = await fetch(url, init);
    await answer.arrayBuffer();
    return answer.status;
  };

  it("rebuilds the endpoint's answer from an allow-list: no cookies whatever the case, statuses 200–599, printable bounded headers", async () => {
    const endpoint = await publish(the().vendor.admin, 'answer-rules');

    const cookies = await fetch(`${endpoint}/cookies`);
    assert.equal(cookies.status, 200);
    assert.equal(await cookies.text(), 'answered cookies');
    for (const refused of ['set-cookie', 'clear-site-data', 'x-other']) assert.equal(cookies.headers.get(refused), null, refused);
    assert.match(cookies.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(cookies.headers.get('cache-control'), 'no-store');
    assert.equal(cookies.headers.get('content-security-policy'), 'sandbox');

    // Outside 200–599: a 502 that says why, never a 500 or a status of the script's.
    for (const status of [0, 99, 100, 600, 1000]) {
      const answer = await fetch(`${endpoint}/status-${status}`);
      assert.equal(answer.status, 502, `status ${status}`);
      assert.match(await errorOf(answer), new RegExp(`refused: its status ${status} is not one from 200 to 599`));
    }
    // An allowed header with a CR/LF or 100 KB in it: 502; a header not on the list is dropped, whatever it holds.
    const crlf = await fetch(`${endpoint}/crlf`);
    assert.equal(crlf.status, 502);
    assert.match(await errorOf(crlf), /its content-type header holds control or non-ASCII characters/);
    const huge = await fetch(`${endpoint}/huge-header`);
    assert.equal(huge.status, 502);
    assert.match(await errorOf(huge), /its cache-control header is longer than 4096 characters/);
    const hugeOther = await fetch(`${endpoint}/huge-other-header`);
    assert.equal(hugeOther.status, 200);
    assert.equal(hugeOther.headers.get('x-huge'), null);
    assert.equal(await hugeOther.text(), 'answered huge-other-header');
    const notPairs = await fetch(`${endpoint}/not-pairs`);
    assert.equal(notPairs.status, 502);
    assert.match(await errorOf(notPairs), /failed to answer/);

    // A script that replaced JSON.stringify still answers what it meant to.
    const stringify = await fetch(`${endpoint}/stringify`);
    assert.equal(stringify.status, 200);
    assert.match(stringify.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(await stringify.text(), 'still sane');

    // Redirects (OAuth callbacks) keep their http(s) location; any other scheme is refused.
    const redirect = await fetch(`${endpoint}/redirect`, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers.get('location'), 'https://example.com/done');
    await redirect.arrayBuffer();
    assert.equal(await statusOf(`${endpoint}/script-redirect`, { redirect: 'manual' }), 502);
  });

  it("runs endpoint scripts off the service's main thread: an endless loop and a memory bomb hold up no other request, and answer 502", async () => {
    const { vendor, customer } = the();
    const endpoint = await publish(vendor.admin, 'endpoint-hostile');
    // Another organization's request to the same service, timed before and while the scripts run.
    const timed = async () => {
      const started = performance.now();
      expectOk(await customer.admin.api.get('/v1/integrations?limit=5'));
      return performance.now() - started;
    };
    const baseline = Math.max(...[await timed(), await timed(), await timed()]);
    const started = performance.now();
    const hostile = ['loop', 'bomb'].map(async (kind) => {
      const answer = await fetch(`${endpoint}/${kind}`);
      return { kind, status: answer.status, message: await errorOf(answer), ms: performance.now() - started };
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const during: number[] = [];
    for (let i = 0; i < 5; i++) {
      during.push(await timed());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const results = await Promise.all(hostile);
    // In the bomb's run, on the main thread, each of these waited for up to its ~20 s.
    const bound = Math.max(1_500, 10 * baseline);
    assert.ok(Math.max(...during) < bound, `answers while the scripts ran: ${during.map(Math.round).join(', ')} ms (baseline ${Math.round(baseline)} ms)`);
    for (const result of results) {
      assert.equal(result.status, 502, result.kind);
      assert.match(result.message, /failed to answer/);
      // Ended by its CPU limit (1 s), the bomb by its worker's termination: far below the 30 s wall clock.
      assert.ok(result.ms < 10_000, `${result.kind} took ${Math.round(result.ms)} ms`);
    }
    // The bomb's worker was replaced: the endpoint answers again.
    const after = await fetch(`${endpoint}/fine`);
    assert.equal(after.status, 200);
    assert.equal(await after.text(), 'fine');
  });

  it("bounds the script CPU time of an organization's endpoints per minute: endless loops are refused once it is spent, other organizations' are not", async () => {
    const { stack, vendor } = the();
    const tenant = await stack.account(['bootstrap', '--email', 'admin@events-looper.test', '--org', 'Events looper']);
    const [first, second] = [await publish(tenant, 'looper-first'), await publish(tenant, 'looper-second')];
    // Two loops at a time (one per integration), each ended at its 1 s of CPU: 8 s are spent after four rounds at most.
    let refused: Response | undefined;
    for (let round = 0; round < 8 && !refused; round++) {
      const answers = await Promise.all([first, second].map((endpoint) => fetch(`${endpoint}/loop`)));
      for (const answer of answers) {
        if (answer.status === 429) refused ??= answer;
        else {
          assert.equal(answer.status, 502, `round ${round}`);
          await answer.arrayBuffer();
        }
      }
    }
    assert.ok(refused, 'the loops were never refused');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
    assert.match(await errorOf(refused), /used their script time for this minute/);
    // Any call of the organization's endpoints is refused until the minute is over; another organization's answers.
    assert.equal(await statusOf(`${first}/fine`), 429);
    const other = await publish(vendor.admin, 'looper-neighbour');
    assert.equal(await statusOf(`${other}/fine`), 200);
  });

  it('bounds concurrent runs per integration and per organization (429 with Retry-After, no queueing), and calls per minute', async () => {
    const { stack } = the();
    // An organization of its own: no event of the others' takes one of its slots meanwhile.
    const tenant = await stack.account(['bootstrap', '--email', 'admin@events-tenant.test', '--org', 'Events tenant']);
    const [first, second] = [await publish(tenant, 'slow-first'), await publish(tenant, 'slow-second')];
    const slowCalls = (endpoints: string[]) =>
      Promise.all(
        endpoints.map(async (endpoint) => {
          const answer = await fetch(`${endpoint}/slow`);
          return { status: answer.status, retryAfter: answer.headers.get('retry-after'), body: await answer.text() };
        }),
      );
    const check = (answers: Awaited<ReturnType<typeof slowCalls>>, expectedDone: number, reason: RegExp) => {
      const refused = answers.filter((answer) => answer.status !== 200);
      assert.equal(answers.length - refused.length, expectedDone, JSON.stringify(answers));
      assert.equal(refused.length, 1, JSON.stringify(answers));
      assert.equal(refused[0].status, 429);
      assert.equal(refused[0].retryAfter, '1');
      assert.match(JSON.parse(refused[0].body).error.message, reason);
      for (const answer of answers) if (answer.status === 200) assert.equal(answer.body, 'slow done');
    };
    // 3 calls at once to one integration: 2 run, the third is refused at once (it does not wait).
    check(await slowCalls([first, first, first]), 2, /^The integration already has 2 script runs in progress/);
    // 2 + 2 calls to two integrations of one organization: 3 run.
    check(await slowCalls([first, first, second, second]), 3, /^The organization already has 3 script runs in progress/);
    // The slots come back once the runs are over.
    assert.equal(await statusOf(`${first}/fine`), 200);

    // At most 15 calls per integration and minute, refused ones included: the 16th (5 + 1 above, 9 here, then one) is told when to come back.
    for (let i = 0; i < 9; i++) assert.equal(await statusOf(`${first}/fine`), 200, `call ${i}`);
    const limited = await fetch(`${first}/fine`);
    assert.equal(limited.status, 429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
    assert.match(await errorOf(limited), /Rate limit exceeded/);
    assert.equal(await statusOf(`${second}/fine`), 200, 'another integration has its own budget');
  });
}
