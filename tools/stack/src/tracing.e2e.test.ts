import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { expectOk as ok, isolatedGit, startTestStack, waitFor, type TestAccount, type TestStack } from '@quire/testkit';
import { readState, type StackState } from './layout';

/** One span as Jaeger's query API gives it, with its process's service. */
interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's span kinds: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
}

/** A trace of Jaeger's API (GET /api/traces/{id}). */
interface JaegerTrace {
  traceID: string;
  spans: Array<{
    traceID: string;
    spanID: string;
    operationName: string;
    processID: string;
    references?: Array<{ refType: string; spanID: string }>;
    tags?: Array<{ key: string; value: unknown }>;
  }>;
  processes: Record<string, { serviceName: string }>;
}

const KINDS: Record<string, number> = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 };

function spansOf(trace: JaegerTrace): ReceivedSpan[] {
  return trace.spans.map((span) => {
    const attributes = Object.fromEntries((span.tags ?? []).map(({ key, value }) => [key, value]));
    return {
      service: trace.processes[span.processID].serviceName,
      traceId: span.traceID,
      spanId: span.spanID,
      parentSpanId: span.references?.find((reference) => reference.refType === 'CHILD_OF')?.spanID,
      name: span.operationName,
      kind: KINDS[String(attributes['span.kind'] ?? 'internal')] ?? 1,
      attributes,
    };
  });
}

/**
 * Tracing through the stack (OpenTelemetry, configured by OTEL_* only) with QUIRE_TRACING=1: the
 * stack runs Jaeger on 127.0.0.1 and every process exports its spans there over OTLP/HTTP; the
 * suite reads them back through Jaeger's query API. One request through the gateway is one trace
 * over the services it touches, down to the datastore, and one merge is one trace down to the
 * script run of the integration its event reaches.
 */
describe('tracing: one trace from the gateway to the datastore', () => {
  let stack: TestStack;
  let admin: TestAccount;
  let jaeger: string;
  let state: StackState;

  /** The spans of one trace in Jaeger, once `complete` holds for them (a moment later too, for late batches). */
  const traceOf = async (traceId: string, complete: (trace: ReceivedSpan[]) => boolean) => {
    const read = async () => {
      const response = await fetch(`${jaeger}/api/traces/${traceId}`);
      return response.ok ? spansOf(((await response.json()) as { data: JaegerTrace[] }).data[0]) : [];
    };
    await waitFor(`trace ${traceId} in Jaeger`, async () => complete(await read()), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return read();
  };
  /** The trace of the gateway's answer with this request id (found in Jaeger by its quire.request.id). */
  const traceIdOf = async (requestId: string) => {
    let traceId: string | undefined;
    const tags = encodeURIComponent(JSON.stringify({ 'quire.request.id': requestId }));
    await waitFor(`the gateway's span of request ${requestId} in Jaeger`, async () => {
      const response = await fetch(`${jaeger}/api/traces?service=gateway&tags=${tags}&limit=5&lookback=1h`);
      const found = response.ok ? ((await response.json()) as { data: JaegerTrace[] | null }).data : null;
      traceId = found?.[0]?.traceID;
      return traceId !== undefined;
    });
    return traceId!;
  };

  beforeAll(async () => {
    stack = await startTestStack({
      QUIRE_TRACING: '1',
      // Git exports go to a bare repository in a directory of the test's.
      GIT_ALLOWED_PROTOCOLS: 'https,http,file',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      // Each request's line ("request completed"), which carries its trace's ids.
      LOG_LEVEL: 'info',
    });
    state = readState(stack.dataDir)!;
    jaeger = state.jaeger!.uiUrl;
    admin = await stack.account(['bootstrap', '--email', 'admin@traced.test', '--org', 'Traced', '--json']);
  });

  afterAll(async () => {
    await stack?.stop();
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
    assert.equal(chain.at(-1), 'gateway POST', chain.join(' < '));
    assert.deepEqual(
      trace.filter((span) => span.parentSpanId && !byId.has(span.parentSpanId)).map((span) => `${span.service} ${span.name}`),
      [],
      'spans whose parent is not in the trace',
    );
  });

  it("traces a Git export's job and a search's index making, each under the request that asked for it", async () => {
    const space = ok(await admin.api.post(`/v1/orgs/${admin.organizationId}/spaces`, { title: 'Exported and searched' }), 201);
    const cr = ok(await admin.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'Pages' }), 201);
    const changes = [{ type: 'insert_page', title: 'Harbour', markdown: 'Tides and moorings of the harbour.' }];
    ok(await admin.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, { changes }));
    ok(await admin.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/merge`));
    const remotes = mkdtempSync(path.join(os.tmpdir(), 'quire-traced-git-'));
    try {
      const bare = path.join(remotes, 'traced.git');
      isolatedGit(remotes).run(remotes, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
      const exported = await admin.api.post(`/v1/spaces/${space.id}/git/export`, {
        url: pathToFileURL(bare).href,
        ref: 'refs/heads/main',
        commitMessage: 'Traced export',
      });
      ok(exported, 204);
      const exportTrace = await traceOf(await traceIdOf(exported.headers.get('x-request-id')!), (list) => list.some((span) => span.name === 'git export'));
      const job = exportTrace.find((span) => span.name === 'git export')!;
      assert.equal(job.service, 'content');
      assert.equal(job.attributes['quire.space.id'], space.id);
      assert.equal(job.attributes['quire.organization.id'], admin.organizationId);
      assert.equal(job.attributes['quire.git.outcome'], 'success');
      assert.ok(!JSON.stringify(exportTrace).includes(bare), 'no span carries the remote');
      const parent = exportTrace.find((span) => span.spanId === job.parentSpanId);
      assert.equal(parent?.name, 'process content-git-sync', 'the export runs in its job');
    } finally {
      rmSync(remotes, { recursive: true, force: true });
    }

    const searched = await admin.api.get(`/v1/spaces/${space.id}/search?query=harbour`);
    assert.equal(ok(searched).items.length, 1);
    const searchTrace = await traceOf(await traceIdOf(searched.headers.get('x-request-id')!), (list) => list.some((span) => span.name === 'search index'));
    const made = searchTrace.find((span) => span.name === 'search index')!;
    assert.equal(made.service, 'content');
    assert.equal(made.attributes['quire.space.id'], space.id);
    assert.equal(made.attributes['quire.search.index.how'], 'built');
  });

  it('leaves no span anywhere for requests their caller did not sample, down to the script runs their events reach', async () => {
    // Every request here says "not sampled" in its trace context (the stack samples every trace it is left to decide).
    const traceId = randomBytes(16).toString('hex');
    const send = (method: string, path: string, body?: unknown) =>
      admin.api.request(method, path, { body, headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-00` } });
    const integration = '/v1/integrations/untraced-recorder';
    ok(
      await send('POST', integration, {
        organization: admin.organizationId,
        title: 'Untraced recorder',
        description: 'Answers every event, untraced',
        scopes: ['space:content:read'],
        script: 'export default { async fetch() { console.log("untraced run"); return new Response("ok"); } };',
      }),
    );
    const installation = ok(await send('POST', `${integration}/installations`, { organization: admin.organizationId }), 201);
    ok(await send('PATCH', `${integration}/installations/${installation.id}`, { space_selection: 'all' }));
    const space = ok(await send('POST', `/v1/orgs/${admin.organizationId}/spaces`, { title: 'Not sampled' }), 201);
    const cr = ok(await send('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'A page' }), 201);
    ok(await send('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, { changes: [{ type: 'insert_page', title: 'Page' }] }));
    const merged = await send('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/merge`);
    ok(merged);
    // The merge's event reaches the integration's script (its run's log is the event's trace).
    await waitFor('the merge event delivered to the script', async () => {
      const events = ok(await send('GET', `${integration}/events?limit=50`)).items as Array<{ id: string }>;
      for (const event of events) {
        const detail = ok(await send('GET', `${integration}/events/${event.id}`));
        if (JSON.stringify(detail.event.payload).includes(space.id) && JSON.stringify(detail.trace).includes('untraced run')) return true;
      }
      return false;
    });
    // What the services exported by now (their batches go every 200 ms) holds nothing of that trace, of the merge, or of a
    // trace begun on the way (work that lost its request's context would start a sampled trace of its own).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.equal((await fetch(`${jaeger}/api/traces/${traceId}`)).status, 404, 'no span of the unsampled trace');
    const tags = encodeURIComponent(JSON.stringify({ 'quire.request.id': merged.headers.get('x-request-id') }));
    for (const service of ['gateway', 'content']) {
      const found = (await (await fetch(`${jaeger}/api/traces?service=${service}&tags=${tags}&limit=5&lookback=1h`)).json()) as { data: unknown[] | null };
      assert.deepEqual(found.data ?? [], [], `no trace of the merge at ${service}`);
    }
    const runs = encodeURIComponent(JSON.stringify({ 'quire.integration.name': 'untraced-recorder' }));
    const scriptRuns = (await (await fetch(`${jaeger}/api/traces?service=integrations&tags=${runs}&limit=5&lookback=1h`)).json()) as { data: unknown[] | null };
    assert.deepEqual(scriptRuns.data ?? [], [], 'no script run of the integration installed unsampled');
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

  it("serves each service's request and call metrics after traffic: by route, by gRPC method, jobs and caches", async () => {
    const metricsOf = async (service: 'content' | 'identity' | 'integrations') => (await fetch(state.replicas[service][0].metricsUrl)).text();
    const content = await metricsOf('content');
    // By route (the pattern, not the URL), method and status; the merge of the test above among them.
    assert.match(
      content,
      /^http_server_request_duration_seconds_bucket\{le="[^"]+",http_request_method="POST",http_route="\/v1\/spaces\/:spaceId\/change-requests\/:changeRequestId\/merge",http_response_status_code="200"\}/m,
    );
    assert.match(
      content,
      /^http_server_request_duration_seconds_count\{http_request_method="GET",http_route="\/v1\/spaces\/:spaceId",http_response_status_code="404"\} [1-9]/m,
    );
    assert.doesNotMatch(content, /http_route="\/v1\/spaces\/[a-zA-Z0-9]{10,}/, 'no series per id');
    assert.match(content, /^quire_cache_entries\{cache="/m);
    // Identity answered content's and the gateway's calls: by method and status code.
    assert.match(
      await metricsOf('identity'),
      /^rpc_server_duration_seconds_count\{rpc_method="\/quire\.identity\.v1\.IdentityService\/GetMembership",rpc_grpc_status_code="0"\} [1-9]/m,
    );
    // The merge's delivery job, finished by integrations' worker; its delivery and script run.
    const integrations = await metricsOf('integrations');
    assert.match(integrations, /^quire_jobs_total\{queue="integration-deliveries",outcome="completed"\} [1-9]/m);
    assert.match(integrations, /^quire_integration_deliveries_total\{outcome="success"\} [1-9]/m);
    assert.match(integrations, /^quire_integration_delivery_duration_seconds_count\{outcome="success"\} [1-9]/m);
    assert.match(integrations, /^quire_script_runs_total\{outcome="ok"\} [1-9]/m);
    assert.match(integrations, /^quire_script_run_duration_seconds_count\{outcome="ok"\} [1-9]/m);
    // Queues by state and their oldest waiting job, event stream lag per consumer group, the runtime's defaults.
    assert.match(integrations, /^quire_queue_jobs\{queue="integration-deliveries",state="waiting"\} \d+/m);
    assert.match(integrations, /^quire_queue_oldest_waiting_age_seconds\{queue="integration-deliveries"\} [\d.]+/m);
    assert.match(content, /^quire_queue_jobs\{queue="content-git-sync",state="active"\} \d+/m);
    assert.match(integrations, /^quire_event_stream_lag\{stream="events",group="[^"]+"\} \d+/m);
    assert.match(integrations, /^quire_event_stream_pending\{stream="events",group="[^"]+"\} \d+/m);
    assert.match(integrations, /^process_cpu_seconds_total /m);
    // Datastore commands by operation.
    assert.match(
      content,
      /^db_client_operation_duration_seconds_count\{db_system_name="mongodb",db_namespace="[^"]+",db_operation_name="find",error_type=""\} [1-9]/m,
    );
  });
});
