import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { startRecorder, type Recorder } from './test/recorder';
import { runScript, type RunLimits, type RunResult } from '.';

/** The Web APIs scripts get inside the sandbox, through scripts that use them. */
const request = { method: 'POST', url: 'https://integrations.quire.invalid/v1', headers: [] as Array<[string, string]> };
const handler = (body: string) => `export default { async fetch(request, env, ctx) { ${body} } };`;
const text = (result: RunResult) => Buffer.from(result.response?.body ?? []).toString('utf8');

describe('Web APIs in the sandbox', () => {
  let recorder: Recorder;
  beforeAll(async () => {
    recorder = await startRecorder();
  });
  afterAll(() => recorder.close());

  const run = (body: string, limits?: Partial<RunLimits>, env?: Record<string, unknown>) =>
    runScript({ script: handler(body), request, limits, hostFetch: recorder.hostFetch, env: { RECORDER: recorder.url, ...env } });

  /** Runs `body`, which returns a JSON-able value, and gives that value back. */
  async function evaluate(body: string): Promise<unknown> {
    const result = await run(`const value = await (async () => { ${body} })(); return Response.json(value);`);
    assert.equal(result.error, undefined, result.error);
    return JSON.parse(text(result));
  }

  it('URL, URLSearchParams, TextEncoder/TextDecoder, atob/btoa, structuredClone, queueMicrotask', async () => {
    const value = await evaluate(`
      const url = new URL('/path?a=1&b=two', 'https://example.com/base/');
      url.searchParams.append('c', 'é');
      const bytes = new TextEncoder().encode('héllo ✓');
      const clone = structuredClone({ when: new Date(0), list: [1, { deep: true }], map: new Map([['k', 'v']]) });
      let microtask = false;
      queueMicrotask(() => { microtask = true });
      await null;
      return {
        url: url.href,
        params: [...new URLSearchParams('x=1&y=2&x=3').getAll('x')],
        bytes: bytes.length,
        decoded: new TextDecoder().decode(bytes),
        base64: [btoa('hello'), atob('aGVsbG8=')],
        clone: [clone.when instanceof Date, clone.list[1].deep, clone.map.get('k')],
        microtask,
        self: self === globalThis,
      };
    `);
    assert.deepEqual(value, {
      url: 'https://example.com/path?a=1&b=two&c=%C3%A9',
      params: ['1', '3'],
      bytes: 10,
      decoded: 'héllo ✓',
      base64: ['aGVsbG8=', 'hello'],
      clone: [true, true, 'v'],
      microtask: true,
      self: true,
    });
  });

  it('crypto.getRandomValues and crypto.randomUUID', async () => {
    const value = (await evaluate(`
      const a = crypto.getRandomValues(new Uint8Array(32));
      const b = crypto.getRandomValues(new Uint32Array(4));
      let tooMany;
      try { crypto.getRandomValues(new Uint8Array(70_000)); } catch (error) { tooMany = error.name; }
      return { a: [...a], b: b.length, uuids: [crypto.randomUUID(), crypto.randomUUID()], tooMany };
    `)) as { a: number[]; b: number; uuids: string[]; tooMany: string };
    assert.equal(value.a.length, 32);
    assert.ok(new Set(value.a).size > 8, 'random bytes');
    assert.equal(value.b, 4);
    for (const uuid of value.uuids) assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(value.uuids[0], value.uuids[1]);
    assert.equal(value.tooMany, 'RangeError');
  });

  it('setTimeout, clearTimeout and setInterval', async () => {
    const value = await evaluate(`
      const order = [];
      const cancelled = setTimeout(() => order.push('cancelled'), 5);
      clearTimeout(cancelled);
      setTimeout((label) => order.push(label), 20, 'late');
      setTimeout(() => order.push('early'), 1);
      let ticks = 0;
      await new Promise((resolve) => {
        const interval = setInterval(() => { ticks++; if (ticks === 3) { clearInterval(interval); resolve(); } }, 2);
      });
      await new Promise((resolve) => setTimeout(resolve, 30));
      return { order, ticks };
    `);
    assert.deepEqual(value, { order: ['early', 'late'], ticks: 3 });
  });

  it('keeps the run going when a timer callback clears the last timer and what it settles schedules another', async () => {
    const value = await evaluate(`
      await new Promise((resolve) => { const interval = setInterval(() => { clearInterval(interval); resolve(); }, 1); });
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'answered';
    `);
    assert.equal(value, 'answered');
  });

  it('Headers, Request, Response: bodies as text, JSON, bytes, Blob, urlencoded and multipart forms', async () => {
    const value = await evaluate(`
      const headers = new Headers({ 'X-One': '1' });
      headers.append('x-one', '2');
      const json = await new Response(JSON.stringify({ é: 1 })).json();
      const bytes = new Uint8Array(await new Response(new Uint8Array([0, 255, 7])).arrayBuffer());
      const utf8 = await new Response(new TextEncoder().encode('ünïcode')).text();
      const blob = await new Response(new Blob(['blob text'], { type: 'text/x-blob' })).blob();
      const urlencoded = await new Request('https://x.invalid/', { method: 'POST', body: new URLSearchParams({ a: '1', b: 'é' }) }).formData();

      const form = new FormData();
      form.append('field', 'välue');
      form.append('file', new File(['file body'], 'notes.txt', { type: 'text/plain' }));
      const multipart = new Request('https://x.invalid/', { method: 'POST', body: form });
      const copy = new Request(multipart);
      const parsed = await copy.formData();
      const file = parsed.get('file');
      return {
        headers: headers.get('x-one'),
        json,
        bytes: [...bytes],
        utf8,
        blob: [blob.type, await blob.text()],
        urlencoded: [...urlencoded],
        contentType: multipart.headers.get('content-type').startsWith('multipart/form-data; boundary='),
        field: parsed.get('field'),
        file: [file.name, file.type, await file.text()],
        used: [multipart.bodyUsed, copy.bodyUsed],
      };
    `);
    assert.deepEqual(value, {
      headers: '1, 2',
      json: { é: 1 },
      bytes: [0, 255, 7],
      utf8: 'ünïcode',
      blob: ['text/x-blob', 'blob text'],
      urlencoded: [
        ['a', '1'],
        ['b', 'é'],
      ],
      contentType: true,
      field: 'välue',
      file: ['notes.txt', 'text/plain', 'file body'],
      used: [true, true],
    });
  });

  it('fetch goes through hostFetch: JSON in and out, a multipart upload the server can parse, statuses as they are', async () => {
    const before = recorder.calls.length;
    const value = await evaluate(`
      const json = await fetch(env.RECORDER + '/json?x=1', { method: 'PUT', headers: { 'content-type': 'application/json', 'x-custom': 'yes' }, body: JSON.stringify({ hello: 'wörld' }) });
      const form = new FormData();
      form.append('title', 'Ünïcode title');
      form.append('attachment', new Blob([new Uint8Array([1, 2, 3])], { type: 'application/octet-stream' }), 'data.bin');
      const upload = await fetch(env.RECORDER + '/upload', { method: 'POST', body: form });
      const missing = await fetch(env.RECORDER + '/status/404');
      return {
        json: [json.status, json.headers.get('x-recorder'), await json.json(), json.url],
        upload: upload.status,
        missing: [missing.status, missing.ok],
      };
    `);
    assert.deepEqual(value, {
      json: [200, 'yes', { ok: true, method: 'PUT', path: '/json?x=1' }, `${recorder.url}/json?x=1`],
      upload: 200,
      missing: [404, false],
    });
    const [json, upload] = recorder.calls.slice(before);
    assert.equal(json.headers['x-custom'], 'yes');
    assert.deepEqual(JSON.parse(json.body.toString()), { hello: 'wörld' });
    // What a real server makes of the sandbox's multipart body.
    const form = await new Request('http://parse.invalid/', {
      method: 'POST',
      headers: { 'content-type': String(upload.headers['content-type']) },
      body: upload.body,
    }).formData();
    assert.equal(form.get('title'), 'Ünïcode title');
    const attachment = form.get('attachment') as File;
    assert.equal(attachment.name, 'data.bin');
    assert.deepEqual([...new Uint8Array(await attachment.arrayBuffer())], [1, 2, 3]);
  });

  it('fetch rejects with a TypeError when hostFetch refuses, the URL is bad, or the run made too many', async () => {
    const value = await evaluate(`
      const failures = [];
      for (const url of ['https://example.com/', 'not a url']) {
        try { await fetch(url); } catch (error) { failures.push(error.name + ': ' + error.message); }
      }
      return failures;
    `);
    assert.deepEqual(value, ['TypeError: egress to example.com is not allowed', 'TypeError: Failed to parse URL from not a url']);

    const limited = await run(
      `const outcomes = []; for (let i = 0; i < 3; i++) { try { await fetch(env.RECORDER + '/n/' + i); outcomes.push('ok'); } catch (error) { outcomes.push(error.message); } } return Response.json(outcomes);`,
      { maxSubrequests: 2 },
    );
    assert.deepEqual(JSON.parse(text(limited)), ['ok', 'ok', 'Too many subrequests: 2 per run at most.']);

    const catching = handler(`try { await fetch('http://127.0.0.1/'); } catch (error) { return new Response(error.message); }`);
    const noFetch = await runScript({ script: catching, request });
    assert.equal(text(noFetch), 'fetch is not available to this script.');
    const throwing = await runScript({
      script: catching,
      request,
      hostFetch: () => {
        throw new Error('refused on the spot');
      },
    });
    assert.equal(text(throwing), 'refused on the spot');
  });

  it('gives the handler the request, env and a waitUntil that the run waits for', async () => {
    const result = await runScript({
      script: handler(`
        ctx.waitUntil(new Promise((resolve) => setTimeout(resolve, 20)).then(() => console.log('background done')));
        return new Response(JSON.stringify({ method: request.method, url: request.url, header: request.headers.get('x-h'), body: await request.text(), env }), { status: 202 });
      `),
      request: { method: 'PUT', url: 'https://example.com/x?y=1', headers: [['x-h', 'v']], body: new TextEncoder().encode('payload') },
      env: { ANSWER: 42 },
    });
    assert.equal(result.response?.status, 202);
    assert.deepEqual(JSON.parse(text(result)), { method: 'PUT', url: 'https://example.com/x?y=1', header: 'v', body: 'payload', env: { ANSWER: 42 } });
    assert.deepEqual(
      result.logs.map((log) => log.message),
      ['background done'],
    );
  });
});
