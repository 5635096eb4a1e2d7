import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  TraceFlags,
  isSpanContextValid,
  propagation,
  trace,
  type Attributes,
  type Context as TraceContext,
  type Link,
} from '@opentelemetry/api';
import type * as Sdk from '@opentelemetry/sdk-node';

type Sampler = Sdk.tracing.Sampler;
type SamplingResult = Sdk.tracing.SamplingResult;

/*
 * Sampling decided where a request enters a process, before the HTTP instrumentation does its
 * work for it. An unsampled request costs a span, attributes and response hooks at every hop if the
 * instrumentation traces it and the sampler then drops it, which is most of what tracing costs
 * (README "Tracing overhead"). Here the configured sampler (OTEL_TRACES_SAMPLER and its argument,
 * read as the SDK reads them) is asked first, from the request's own `traceparent`:
 * - sampled: the instrumentation traces the request, and its server span is kept whatever its new
 *   trace id would draw (EntrySampler), so the decision is made once;
 * - not sampled: the instrumentation leaves the request alone, and the request carries a
 *   `traceparent` saying so (the one it came with, or a new one with a new trace id). The service
 *   runs its work in that context (@quire/runtime continueTrace), so every span under it is unsampled too, and
 *   the next hop (the gateway's proxy forwards the header as it is) decides the same.
 */

type Tracing = typeof Sdk.tracing;

/** The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name, as the SDK builds it when none is given. */
export function samplerFromEnv(tracing: Tracing, env: NodeJS.ProcessEnv): Sampler {
  const ratio = () => {
    const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim();
    const value = arg ? Number(arg) : NaN;
    return value >= 0 && value <= 1 ? value : 1;
  };
  const parentBased = (root: Sampler) => new tracing.ParentBasedSampler({ root });
  switch (env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_always_on') {
    case 'always_on':
      return new tracing.AlwaysOnSampler();
    case 'always_off':
      return new tracing.AlwaysOffSampler();
    case 'traceidratio':
      return new tracing.TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_off':
      return parentBased(new tracing.AlwaysOffSampler());
    case 'parentbased_traceidratio':
      return parentBased(new tracing.TraceIdRatioBasedSampler(ratio()));
    default:
      return parentBased(new tracing.AlwaysOnSampler());
  }
}

/** Whether a span is the server span the HTTP instrumentation starts for a request it did not ignore. */
const isHttpServerSpan = (kind: SpanKind, attributes: Attributes) =>
  kind === SpanKind.SERVER && (attributes['http.request.method'] !== undefined || attributes['http.method'] !== undefined);

export interface EntrySampling {
  /** The SDK's sampler: the configured one, except for the request spans entries already sampled. */
  sampler: Sampler;
  /**
   * Whether a request entering this process is traced (the HTTP instrumentation's
   * ignoreIncomingRequestHook is its negation). An unsampled request is given the `traceparent`
   * that says so when it had none.
   */
  traced(headers: IncomingHttpHeaders): boolean;
}

export function entrySampling(tracing: Tracing, configured: Sampler): EntrySampling {
  const { SamplingDecision } = tracing;
  // The SDK's own ids (not cryptographic ones: a draw of crypto's cost a tenth of what an unsampled request costs).
  const ids = new tracing.RandomIdGenerator();
  class EntrySampler {
    shouldSample(parentContext: TraceContext, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
      const parent = trace.getSpanContext(parentContext);
      // The request's entry sampled it (traced): asking again with the span's new trace id would draw twice.
      if (!(parent && isSpanContextValid(parent)) && isHttpServerSpan(kind, attributes)) return { decision: SamplingDecision.RECORD_AND_SAMPLED };
      return configured.shouldSample(parentContext, traceId, name, kind, attributes, links);
    }
    toString() {
      return `EntrySampler{${configured.toString()}}`;
    }
  }
  return {
    sampler: new EntrySampler(),
    traced(headers) {
      const parentContext = propagation.extract(ROOT_CONTEXT, headers);
      const parent = trace.getSpanContext(parentContext);
      const hasParent = !!parent && isSpanContextValid(parent);
      const traceId = hasParent ? parent.traceId : ids.generateTraceId();
      const { decision } = configured.shouldSample(parentContext, traceId, 'entry', SpanKind.SERVER, {}, []);
      if (decision === SamplingDecision.RECORD_AND_SAMPLED) return true;
      if (!hasParent || parent.traceFlags & TraceFlags.SAMPLED) {
        // Not sampled here: the request says so to everything it reaches (a parent's sampled flag is dropped with it).
        const unsampled = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: ids.generateSpanId(), traceFlags: TraceFlags.NONE });
        delete headers.traceparent;
        delete headers.tracestate;
        propagation.inject(unsampled, headers);
      }
      return false;
    },
  };
}

type Emit = (this: Server, event: string | symbol, ...args: unknown[]) => boolean;

/**
 * Hands the requests `skip` picks to what the HTTP instrumentation wrapped, so that they skip it
 * altogether. Its own ignore hook still binds every listener of the request and the response to a
 * context (a context switch per event), which was most of what an unsampled request cost (README
 * "Tracing overhead"). The instrumentation wraps `Server.prototype.emit` (keeping what it wrapped
 * as `__original`, as OpenTelemetry's wrapper does); this wraps it in turn. Whether it could.
 */
export function bypassInstrumentation(server: typeof Server, skip: (request: IncomingMessage) => boolean): boolean {
  const instrumented = server.prototype.emit as Emit & { __original?: Emit };
  const original = instrumented.__original;
  if (typeof original !== 'function') return false;
  server.prototype.emit = function emit(this: Server, event: string | symbol, ...args: unknown[]) {
    const skipped = event === 'request' && skip(args[0] as IncomingMessage);
    return (skipped ? original : instrumented).apply(this, [event, ...args]);
  } as typeof server.prototype.emit;
  return true;
}
