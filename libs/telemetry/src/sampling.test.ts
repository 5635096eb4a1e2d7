import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { ROOT_CONTEXT, SpanKind, propagation } from '@opentelemetry/api';
import { core, tracing } from '@opentelemetry/sdk-node';
import { entrySampling, samplerFromEnv } from './sampling';

const SAMPLED = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const UNSAMPLED = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;

const entry = (env: NodeJS.ProcessEnv) => entrySampling(tracing, samplerFromEnv(tracing, env));

describe('@quire/telemetry: sampling decided where a request enters', () => {
  beforeAll(() => {
    propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  });
  afterAll(() => propagation.disable());

  it('reads OTEL_TRACES_SAMPLER and its argument as the SDK does', () => {
    assert.equal(
      samplerFromEnv(tracing, {}).toString(),
      'ParentBased{root=AlwaysOnSampler, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}',
    );
    assert.match(
      samplerFromEnv(tracing, { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }).toString(),
      /root=TraceIdRatioBased\{0\.1\}/,
    );
    assert.equal(samplerFromEnv(tracing, { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '7' }).toString(), 'TraceIdRatioBased{1}');
    assert.equal(samplerFromEnv(tracing, { OTEL_TRACES_SAMPLER: 'always_off' }).toString(), 'AlwaysOffSampler');
  });

  it('an unsampled request without a traceparent is given one saying so; a sampled one is left as it came', () => {
    const off = entry({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    const headers: IncomingHttpHeaders = {};
    assert.equal(off.traced(headers), false);
    const [, traceId, , flags] = TRACEPARENT.exec(String(headers.traceparent)) ?? [];
    assert.ok(traceId && traceId !== '0'.repeat(32), `a new trace: ${headers.traceparent}`);
    assert.equal(flags, '00');
    // Each unsampled request is a trace of its own.
    const other: IncomingHttpHeaders = {};
    off.traced(other);
    assert.notEqual(other.traceparent, headers.traceparent);

    const on = entry({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' });
    const fresh: IncomingHttpHeaders = {};
    assert.equal(on.traced(fresh), true);
    assert.equal(fresh.traceparent, undefined);
  });

  it('a parent-based sampler follows the caller: its sampled flag traces at any ratio, its unsampled one never', () => {
    const off = entry({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    const sampled: IncomingHttpHeaders = { traceparent: SAMPLED };
    assert.equal(off.traced(sampled), true);
    assert.equal(sampled.traceparent, SAMPLED);
    const on = entry({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' });
    const unsampled: IncomingHttpHeaders = { traceparent: UNSAMPLED };
    assert.equal(on.traced(unsampled), false);
    assert.equal(unsampled.traceparent, UNSAMPLED, 'the header it came with says it already');
  });

  it('a sampler that ignores the parent overrides a sampled flag, and the header then says "not sampled" in the same trace', () => {
    const never = entry({ OTEL_TRACES_SAMPLER: 'always_off' });
    const headers: IncomingHttpHeaders = { traceparent: SAMPLED, tracestate: 'vendor=1' };
    assert.equal(never.traced(headers), false);
    const [, traceId, , flags] = TRACEPARENT.exec(String(headers.traceparent)) ?? [];
    assert.equal(traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.equal(flags, '00');
  });

  it('draws about the configured ratio of new requests', () => {
    const tenth = entry({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' });
    let traced = 0;
    for (let i = 0; i < 4000; i++) if (tenth.traced({})) traced++;
    // 400 expected; the bounds are ±6 standard deviations (σ ≈ 19).
    assert.ok(traced > 285 && traced < 515, `${traced} of 4000 traced`);
  });

  it('keeps the server span of a request its entry sampled, and asks the configured sampler for every other span', () => {
    const { sampler } = entry({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const decide = (kind: SpanKind, attributes: Record<string, string>) => sampler.shouldSample(ROOT_CONTEXT, traceId, 'span', kind, attributes, []).decision;
    assert.equal(decide(SpanKind.SERVER, { 'http.request.method': 'GET' }), tracing.SamplingDecision.RECORD_AND_SAMPLED);
    assert.equal(decide(SpanKind.SERVER, { 'rpc.system': 'grpc' }), tracing.SamplingDecision.NOT_RECORD);
    assert.equal(decide(SpanKind.CONSUMER, {}), tracing.SamplingDecision.NOT_RECORD);
    const unsampledParent = propagation.extract(ROOT_CONTEXT, { traceparent: UNSAMPLED });
    assert.equal(
      sampler.shouldSample(unsampledParent, traceId, 'span', SpanKind.SERVER, { 'http.request.method': 'GET' }, []).decision,
      tracing.SamplingDecision.NOT_RECORD,
    );
  });
});
