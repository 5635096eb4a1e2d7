import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { expectOk as ok, startTestStack, waitFor, type TestAccount, type TestStack } from '@quire/testkit';

/** One span as OTLP/HTTP JSON carries it, with its process's service. */
interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const valueOf = (value: OtlpValue) => value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
const attributesOf = (list: Array<{ key: string; value: OtlpValue }> = []) => Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

/**
 * Tracing through the stack (OpenTelemetry, configured by OTEL_* only): every process exports its
 * spans over OTLP/HTTP (JSON) to a receiver of the test's on 127.0.0.1, and one request through
 * the gateway is one trace over the services it touches, down to the datastore.
 */
describe('tracing: one trace from the gateway to the datastore', () => {
  let stack: TestStack;
  let admin: TestAccount;
  let receiver: Server;
  const spans: ReceivedSpan[] = [];
  /** Content types the exporters sent. */
  const contentTypes = new Set<string>();

  /** The spans of one trace, once `complete` holds for them (a moment later too, for late batches). */
  const traceOf = async (traceId: string, complete: (trace: ReceivedSpan[]) => boolean) => {
    await waitFor(`trace ${traceId} to be exported`, async () => complete(spans.filter((span) => span.traceId === traceId)), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    return spans.filter((span) => span.traceId === traceId);
  };
  /** The trace of the gateway's answer with this request id. */
  const traceIdOf = async (requestId: string) => {
    let found: ReceivedSpan | undefined;
    await waitFor(`the gateway's span of request ${requestId}`, async () => {
      found = spans.find((span) => span.service === 'gateway' && span.attributes['quire.request.id'] === requestId && span.kind === 2);
      return found !== undefined;
    });
    return found!.traceId;
  };

  beforeAll(async () => {
    receiver = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      contentTypes.add(String(req.headers['content-type']));
      if (req.url !== '/v1/traces') return res.writeHead(404).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{
          resource: { attributes: Array<{ key: string; value: OtlpValue }> };
          scopeSpans: Array<{ spans: Array<Omit<ReceivedSpan, 'service' | 'attributes'> & { attributes?: Array<{ key: string; value: OtlpValue }> }> }>;
        }>;
      };
      for (const { resource, scopeSpans } of body.resourceSpans) {
        const service = String(attributesOf(resource.attributes)['service.name']);
        for (const { spans: list } of scopeSpans)
          for (const span of list) spans.push({ ...span, parentSpanId: span.parentSpanId || undefined, service, attributes: attributesOf(span.attributes) });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    stack = await startTestStack({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      // Each request's line ("request completed"), which carries its trace's ids.
      LOG_LEVEL: 'info',
    });
    admin = await stack.account(['bootstrap', '--email', 'admin@traced.test', '--org', 'Traced', '--json']);
  });

  afterAll(async () => {
    await stack?.stop();
    if (receiver) await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  /** A title no span may carry (bodies and statements' values stay out of spans). */
  const TITLE = 'Quarterly plan 4417';

  it('makes one trace of a request: the gateway, the service, its gRPC calls and its datastore queries, each span under its parent', async () => {
    const created = await admin.api.post(`/v1/orgs/${admin.organizationId}/spaces`, { title: TITLE });
    ok(created, 201);
    const requestId = created.headers.get('x-request-id')!;
    assert.ok(requestId, 'the gateway answers with a request id');
    const traceId = await traceIdOf(requestId);
    const trace = await traceOf(traceId, (list) => ['gateway', 'content', 'identity'].every((service) => list.some((span) => span.service === service)));

    const services = new Set(trace.map((span) => span.service));
    assert.ok(services.has('gateway') && services.has('content') && services.has('identity'), `services in the trace: ${[...services].join(', ')}`);
    // The gateway's proxying is a client span; content's answer a server span under it.
    assert.ok(
      trace.some((span) => span.service === 'gateway' && span.kind === 3),
      'the gateway calls content',
    );
    assert.ok(
      trace.some((span) => span.service === 'content' && span.kind === 2 && span.attributes['quire.request.id'] === requestId),
      'content answers',
    );
    // gRPC from content to identity, client and server.
    assert.ok(trace.some((span) => span.service === 'content' && span.kind === 3 && span.attributes['rpc.system'] === 'grpc'));
    assert.ok(trace.some((span) => span.service === 'identity' && span.kind === 2 && span.attributes['rpc.system'] === 'grpc'));
    // The datastore: the space's insert, without its values.
    const inserts = trace.filter((span) => span.attributes['db.system.name'] === 'mongodb' && span.service === 'content');
    assert.ok(inserts.length > 0, 'content queries the datastore within the trace');
    assert.ok(!JSON.stringify(trace).includes(TITLE), 'no span carries what was written');
    assert.ok(!JSON.stringify(trace).includes(admin.token), 'no span carries the token');
    // One root (the gateway's answer), and every other span's parent in the trace.
    const ids = new Set(trace.map((span) => span.spanId));
    const roots = trace.filter((span) => !span.parentSpanId);
    assert.deepEqual(
      roots.map((span) => span.service),
      ['gateway'],
    );
    assert.deepEqual(
      trace.filter((span) => span.parentSpanId && !ids.has(span.parentSpanId)).map((span) => `${span.service} ${span.name}`),
      [],
      'spans whose parent is not in the trace',
    );
    assert.deepEqual([...contentTypes], ['application/json']);
  });

  it("makes one trace of a merge: the request, the event it publishes, the integration's delivery and its script run", async () => {
    const integration = '/v1/integrations/traced-recorder';
    ok(
      await admin.api.post(integration, {
        organization: admin.organizationId,
        title: 'Traced recorder',
        description: 'Answers every event',
        scopes: ['space:content:read'],
        script: 'export default { async fetch() { return new Response("ok"); } };',
      }),
    );
    const installation = ok(await admin.api.post(`${integration}/installations`, { organization: admin.organizationId }), 201);
    ok(await admin.api.patch(`${integration}/installations/${installation.id}`, { space_selection: 'all' }));
    const space = ok(await admin.api.post(`/v1/orgs/${admin.organizationId}/spaces`, { title: 'Merged' }), 201);
    const cr = ok(await admin.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'A page' }), 201);
    ok(await admin.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, { changes: [{ type: 'insert_page', title: 'Page' }] }));
    const merged = await admin.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/merge`);
    ok(merged);
    const traceId = await traceIdOf(merged.headers.get('x-request-id')!);
    const trace = await traceOf(traceId, (list) => list.some((span) => span.name === 'script run'));

    const services = new Set(trace.map((span) => span.service));
    for (const service of ['gateway', 'content', 'identity', 'integrations'])
      assert.ok(services.has(service), `${service} in the trace (${[...services].join(', ')})`);
    // The event: published by content, handled by integrations' consumer group.
    const published = new Set(trace.filter((span) => span.service === 'content' && span.name === 'send events').map((span) => span.spanId));
    assert.ok(published.size > 0, 'content publishes events');
    const handled = trace.filter((span) => span.service === 'integrations' && span.name === 'process events');
    assert.ok(handled.length > 0, 'integrations handles them');
    assert.ok(
      handled.every((span) => published.has(span.parentSpanId!)),
      'each handling under its publication',
    );
    // The delivery job and the script run, with whom it ran for and nothing of what it did.
    const run = trace.find((span) => span.name === 'script run')!;
    assert.equal(run.service, 'integrations');
    assert.equal(run.attributes['quire.integration.name'], 'traced-recorder');
    assert.equal(run.attributes['quire.organization.id'], admin.organizationId);
    assert.equal(run.attributes['quire.script.status'], 200);
    const byId = new Map(trace.map((span) => [span.spanId, span]));
    // From the script run up through its parents: the delivery job, the event's handling and
    // publication, content's merge, the gateway's answer (the trace's one root).
    const chain: string[] = [];
    for (let span: ReceivedSpan | undefined = run; span; span = span.parentSpanId ? byId.get(span.parentSpanId) : undefined)
      chain.push(`${span.service} ${span.name}`);
    const expected = [
      'integrations script run',
      'integrations process integration-deliveries',
      'integrations send integration-deliveries',
      'integrations process events',
      'content send events',
    ];
    assert.deepEqual(chain.slice(0, expected.length), expected, chain.join(' < '));
    assert.ok(chain.includes('content POST /v1/spaces/:spaceId/change-requests/:changeRequestId/merge'), chain.join(' < '));
    assert.equal(chain.at(-1), 'gateway POST /v1', chain.join(' < '));
    assert.deepEqual(
      trace.filter((span) => span.parentSpanId && !byId.has(span.parentSpanId)).map((span) => `${span.service} ${span.name}`),
      [],
      'spans whose parent is not in the trace',
    );
  });

  it('writes the trace and span ids into the log lines of the work they trace', async () => {
    const missing = await admin.api.get(`/v1/spaces/no-such-space`);
    assert.equal(missing.status, 404);
    const requestId = missing.headers.get('x-request-id')!;
    const traceId = await traceIdOf(requestId);
    let line: { trace_id?: string; span_id?: string; reqId?: string; service?: string; msg?: string } | undefined;
    await waitFor(
      "content's log line of the request",
      async () => {
        line = stack
          .output()
          .split('\n')
          .filter((text) => text.startsWith('{') && text.includes(traceId))
          .map((text) => JSON.parse(text) as typeof line)
          .find((entry) => entry!.service === 'content' && entry!.msg === 'request completed');
        return line !== undefined;
      },
      10_000,
    );
    assert.equal(line!.trace_id, traceId);
    assert.equal(line!.reqId, requestId);
    const trace = await traceOf(traceId, (list) => list.some((span) => span.spanId === line!.span_id));
    assert.equal(trace.find((span) => span.spanId === line!.span_id)!.service, 'content', 'the line names a span of content');
  });
});
