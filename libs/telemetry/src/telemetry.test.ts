import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { telemetryConfigured } from './index';

/** What a process does once @quire/telemetry started: answer one request of its own, export, exit; it prints whether http is patched. */
const PROBE = `
require(${JSON.stringify(path.join(__dirname, '..', 'dist', 'index.js'))});
const http = require('node:http');
const { trace } = require(require.resolve('@opentelemetry/api', { paths: [${JSON.stringify(__dirname)}] }));
let bound;
// Whether the HTTP instrumentation took the request (it binds the request's listeners to its context).
const server = http.createServer((req, res) => { bound = Object.hasOwn(req, 'on'); res.end('ok'); }).listen(0, '127.0.0.1', () => {
  http.get('http://127.0.0.1:' + server.address().port + '/work', (res) => {
    res.resume();
    res.on('end', async () => {
      const provider = trace.getTracerProvider();
      await provider.getDelegate().forceFlush?.();
      console.log(JSON.stringify({ patched: http.request.__wrapped === true, bound }));
      process.exit(0);
    });
  });
});
`;

describe('@quire/telemetry: the SDK as OTEL_* configures it', () => {
  let receiver: Server;
  let endpoint: string;
  const received: Array<{ contentType: string; body: Buffer }> = [];

  beforeAll(async () => {
    receiver = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.url === '/v1/traces') received.push({ contentType: String(req.headers['content-type']), body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': String(req.headers['content-type']) }).end(req.headers['content-type'] === 'application/json' ? '{}' : '');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  /** Runs the probe with `env` (and nothing of this process's OTEL_*); what it printed. */
  const probe = (env: Record<string, string>) =>
    new Promise<{ patched: boolean; bound: boolean }>((resolve, reject) => {
      const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')));
      const child = spawn(process.execPath, ['-e', PROBE], { env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`probe exited with ${code}`))));
    });

  it('starts only with an endpoint or an exporter, and never when disabled', () => {
    assert.equal(telemetryConfigured({}), false);
    assert.equal(telemetryConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), true);
    assert.equal(telemetryConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }), true);
    assert.equal(telemetryConfigured({ OTEL_TRACES_EXPORTER: 'otlp' }), true);
    assert.equal(telemetryConfigured({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), false);
    assert.equal(telemetryConfigured({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), false);
  });

  it('exports over OTLP/HTTP as JSON, the service named by OTEL_SERVICE_NAME', async () => {
    received.length = 0;
    const { patched } = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'probe' });
    assert.equal(patched, true);
    assert.ok(received.length > 0, 'spans exported');
    assert.ok(received.every(({ contentType }) => contentType === 'application/json'));
    const spans = received.flatMap(({ body }) =>
      (JSON.parse(body.toString('utf8')).resourceSpans as any[]).flatMap((resource) =>
        resource.scopeSpans.flatMap((scope: any) =>
          scope.spans.map((span: any) => ({ ...span, service: resource.resource.attributes.find((a: any) => a.key === 'service.name').value.stringValue })),
        ),
      ),
    );
    const served = spans.find((span) => span.kind === 2);
    assert.ok(served, 'the request it answered is a server span');
    assert.equal(served.service, 'probe');
  });

  it('exports over OTLP/HTTP as protobuf by default', async () => {
    received.length = 0;
    const { patched } = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    assert.equal(patched, true);
    assert.ok(received.length > 0 && received.every(({ contentType, body }) => contentType === 'application/x-protobuf' && body.length > 0));
  });

  it('leaves a request its entry does not sample to the server as it is, and exports nothing of it', async () => {
    received.length = 0;
    const sampled = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    assert.deepEqual(sampled, { patched: true, bound: true });
    const count = received.length;
    assert.ok(count > 0);
    const unsampled = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    assert.deepEqual(unsampled, { patched: true, bound: false });
    assert.equal(received.length, count, 'no span exported');
  });

  it('leaves out the instrumentations OTEL_NODE_DISABLED_INSTRUMENTATIONS names', async () => {
    const { patched } = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'http' });
    assert.equal(patched, false);
  });

  it('patches nothing and exports nothing without an endpoint', async () => {
    received.length = 0;
    const { patched } = await probe({});
    assert.equal(patched, false);
    assert.equal(received.length, 0);
  });
});
