import type { IncomingHttpHeaders } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

/*
 * Spans of Quire's own work, beside those the instrumentations make (@quire/telemetry): queue
 * jobs and stream events from their producer to each consumer, script runs. Through the
 * OpenTelemetry API only: without the SDK (no OTEL_* endpoint) every call here is a no-op.
 */

const tracer = trace.getTracer('quire');

/** The active trace context as W3C trace-context fields (`traceparent`, `tracestate`): undefined when nothing is traced. */
export function traceCarrier(): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

export interface SpanOptions {
  kind?: 'internal' | 'producer' | 'consumer' | 'client';
  attributes?: Attributes;
  /**
   * The trace context of the work this continues (a carrier of traceCarrier, from a job or an
   * event): the span is its child. Absent: a child of the active span, if any.
   */
  parent?: Record<string, string>;
}

const KINDS = { internal: SpanKind.INTERNAL, producer: SpanKind.PRODUCER, consumer: SpanKind.CONSUMER, client: SpanKind.CLIENT };

/**
 * Runs `work` in a span named `name` (active within it): ended when `work` settles, marked as an
 * error when it throws. `work` gets the span, to add what it learns (attributes, never secrets or bodies).
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.parent && Object.keys(options.parent).length > 0 ? propagation.extract(ROOT_CONTEXT, options.parent) : context.active();
  return tracer.startActiveSpan(name, { kind: KINDS[options.kind ?? 'internal'], attributes: options.attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.name });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Adds what the work learnt to the active span, if any (attributes, never secrets or bodies). */
export function annotateSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** Marks a span as failed without an exception (an outcome the work reports, e.g. a script's error). */
export function markSpanFailed(span: Span, reason: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
}

/**
 * Runs a request's `work` in the trace its headers carry when no span is active: a request its
 * entry did not sample (@quire/telemetry leaves it to run untraced, with a `traceparent` saying
 * "not sampled") still has its trace, so what its work does is unsampled too, not the root of a
 * trace of its own. Without the SDK, `work` runs as it is.
 */
export function continueTrace<T>(headers: IncomingHttpHeaders, work: () => T): T {
  if (trace.getActiveSpan()) return work();
  const carried = propagation.extract(ROOT_CONTEXT, headers);
  return trace.getSpan(carried) ? context.with(carried, work) : work();
}
