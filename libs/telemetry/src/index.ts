import type * as NodeHttp from 'node:http';
import path from 'node:path';
import type * as Grpc from '@opentelemetry/instrumentation-grpc';
import type * as Http from '@opentelemetry/instrumentation-http';
import type * as IORedis from '@opentelemetry/instrumentation-ioredis';
import type * as MongoDB from '@opentelemetry/instrumentation-mongodb';
import type * as Pino from '@opentelemetry/instrumentation-pino';
import type * as Undici from '@opentelemetry/instrumentation-undici';
import { trace, TraceFlags } from '@opentelemetry/api';
import type * as Sdk from '@opentelemetry/sdk-node';
import { bypassInstrumentation, entrySampling, samplerFromEnv } from './sampling';

/*
 * Tracing of a service process with the OpenTelemetry Node SDK, configured only by the standard
 * variables: OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
 * OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf, the default, or http/json), OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and its argument, OTEL_BSP_*, OTEL_SDK_DISABLED.
 *
 * Importing this module starts it, so each service's main imports it before anything else: the
 * instrumentations patch http, gRPC, the MongoDB driver, ioredis, pino and fetch (undici) as those
 * are loaded after it. Express is not instrumented (a span per middleware costs more than it tells):
 * libs/http names each request's span by its route. With no endpoint and no OTEL_TRACES_EXPORTER set, nothing starts:
 * nothing is patched or exported, and the process runs as without it.
 *
 * Spans carry what identifies work (routes, methods, collections, ids), never request or response
 * bodies, headers with credentials, or the statements' values (the MongoDB instrumentation's
 * statements are off; ioredis' serializer drops arguments).
 *
 * Sampling is decided where a request enters a process, before the HTTP instrumentation works on it
 * (sampling.ts): an unsampled request costs next to nothing at each hop, and the work it does runs
 * in its unsampled trace (@quire/runtime continueTrace, called by the gateway and by every route of libs/http).
 */

/** Whether this process exports traces: an OTLP endpoint or an exporter is set, and the SDK is not disabled. */
export function telemetryConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter) return exporter !== 'none';
  return !!(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** The service a process runs when OTEL_SERVICE_NAME does not say: the package of its main (services/<name>/dist/main.js). */
function serviceOfMain(): string | undefined {
  const main = process.argv[1];
  if (!main) return undefined;
  const packageDir = path.dirname(path.dirname(main));
  return path.basename(path.dirname(packageDir)) === 'services' ? path.basename(packageDir) : undefined;
}

/** The header of the request id (libs/runtime REQUEST_ID_HEADER; not imported: this module loads before everything). */
const REQUEST_ID_HEADER = 'x-request-id';

let sdk: Sdk.NodeSDK | undefined;

/**
 * Loads a module of the SDK only when tracing starts: loading them all costs about half a second
 * of CPU per process, which a process that does not trace should not pay.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const load = <T>(name: string): T => require(name) as T;

/** Starts tracing once, when configured (telemetryConfigured); whether it runs. */
export function startTelemetry(env: NodeJS.ProcessEnv = process.env): boolean {
  if (sdk) return true;
  if (!telemetryConfigured(env)) return false;
  const service = serviceOfMain();
  if (!env.OTEL_SERVICE_NAME && service) env.OTEL_SERVICE_NAME = service;
  // Traces only: metrics are Prometheus' (each service's /metrics), logs go to stdout with their trace ids.
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  /** Probes, scrapes and readiness polls are not work worth a trace. */
  const probe = (url: string | undefined) => /^\/(healthz|readyz|metrics)(\?|$)/.test(url ?? '');
  // OTEL_NODE_DISABLED_INSTRUMENTATIONS (as OpenTelemetry's auto-instrumentations read it): names to leave out, e.g. "pino,ioredis".
  const disabled = new Set((env.OTEL_NODE_DISABLED_INSTRUMENTATIONS ?? '').split(',').map((name) => name.trim()));
  const { HttpInstrumentation } = load<typeof Http>('@opentelemetry/instrumentation-http');
  const { GrpcInstrumentation } = load<typeof Grpc>('@opentelemetry/instrumentation-grpc');
  const { MongoDBInstrumentation } = load<typeof MongoDB>('@opentelemetry/instrumentation-mongodb');
  const { IORedisInstrumentation } = load<typeof IORedis>('@opentelemetry/instrumentation-ioredis');
  const { PinoInstrumentation } = load<typeof Pino>('@opentelemetry/instrumentation-pino');
  const { UndiciInstrumentation } = load<typeof Undici>('@opentelemetry/instrumentation-undici');
  const { NodeSDK, tracing } = load<typeof Sdk>('@opentelemetry/sdk-node');
  const entry = entrySampling(tracing, samplerFromEnv(tracing, env));
  /** Requests the HTTP instrumentation leaves alone: probes, and those their entry does not sample. */
  const untraced = (req: NodeHttp.IncomingMessage) => probe(req.url) || !entry.traced(req.headers);
  /** Whether untraced requests are kept from the instrumentation before it sees them (below); if not, its ignore hook asks. */
  let bypassed = false;
  /** Outgoing HTTP under unsampled work is left alone: the `traceparent` it forwards (the proxy's) already says "not sampled". */
  const unsampled = () => {
    const span = trace.getActiveSpan();
    return !!span && !(span.spanContext().traceFlags & TraceFlags.SAMPLED);
  };
  const instrumentations = {
    http: () =>
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => !bypassed && untraced(req),
        ignoreOutgoingRequestHook: (options) => probe(options.path ?? undefined) || unsampled(),
        // Outgoing HTTP is traced as part of some work, never on its own.
        requireParentforOutgoingSpans: true,
        // The request id the gateway gives each request (and every service gets with it): a log line's way to its trace.
        applyCustomAttributesOnSpan: (span, request, response) => {
          const answered = 'getHeader' in response ? response.getHeader(REQUEST_ID_HEADER) : undefined;
          const asked = 'headers' in request ? request.headers[REQUEST_ID_HEADER] : undefined;
          const id = answered ?? asked;
          if (typeof id === 'string') span.setAttribute('quire.request.id', id);
        },
      }),
    grpc: () => new GrpcInstrumentation({ ignoreGrpcMethods: [/^Check$/, /^Watch$/] }),
    mongodb: () => new MongoDBInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
    // Queues and event streams poll Redis without end: only commands of some traced work are spans.
    ioredis: () => new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    pino: () => new PinoInstrumentation({ disableLogSending: true }),
    undici: () => new UndiciInstrumentation({ requireParentforSpans: true, ignoreRequestHook: (request) => probe(request.path) }),
  };
  sdk = new NodeSDK({
    sampler: entry.sampler,
    instrumentations: Object.entries(instrumentations)
      .filter(([name]) => !disabled.has(name))
      .map(([, make]) => make()),
  });
  sdk.start();
  // Loading http now has the instrumentation wrap its server's emit, which this wraps in turn.
  if (!disabled.has('http')) bypassed = bypassInstrumentation(load<typeof NodeHttp>('node:http').Server, untraced);
  return true;
}

startTelemetry();
