import { isUnavailableError } from './faults';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { PROTO_FILES, PROTOS_DIR } from '@quire/proto';
import {
  ChannelCredentials,
  ClientError,
  createChannel,
  createClientFactory,
  createServer,
  Metadata,
  ServerError,
  Status,
  type CallContext,
  type Client,
  type ClientMiddleware,
  type CompatServiceDefinition,
  type Server,
  type ServerMiddlewareCall,
  type ServiceImplementation,
} from 'nice-grpc';
import { deadlineMiddleware, type DeadlineOptions } from 'nice-grpc-client-middleware-deadline';
import { retryMiddleware, type RetryOptions } from 'nice-grpc-client-middleware-retry';
import { HealthDefinition, HealthServiceImpl, HealthState } from 'nice-grpc-server-health';
import type { Registry } from 'prom-client';
import { counterOf, histogramOf } from './metrics';
import { currentRequestId, requestContext } from './context';
import type { Logger } from './logger';
import { NUL_MESSAGE, nulFieldName, nulPath } from './nul';
import { REQUEST_ID_HEADER, signCaller, verifyCaller } from './principal';

export const grpcStatus = Status;

/** Largest batch one gRPC call may ask for (checkBatch); the typed clients (libs/http) split bigger ones. */
export const MAX_GRPC_BATCH = 1000;

/** `items` when there are at most MAX_GRPC_BATCH of them, else INVALID_ARGUMENT naming `what`. */
export function checkBatch<T>(items: T[], what = 'ids'): T[] {
  if (items.length > MAX_GRPC_BATCH) throw new ServerError(Status.INVALID_ARGUMENT, `at most ${MAX_GRPC_BATCH} ${what} per call`);
  return items;
}
/** What a gRPC handler throws for an expected failure (not found, invalid argument…). */
export const GrpcError = ServerError;

/**
 * The gRPC status of a domain error's HTTP status (libs/http's HttpError, the one error domain
 * code throws for an expected failure): the same failure a REST caller gets, told to a gRPC one.
 */
const STATUS_OF_HTTP: ReadonlyMap<number, Status> = new Map([
  [400, Status.INVALID_ARGUMENT],
  [401, Status.UNAUTHENTICATED],
  [403, Status.PERMISSION_DENIED],
  [404, Status.NOT_FOUND],
  [409, Status.ABORTED],
  [412, Status.FAILED_PRECONDITION],
  [413, Status.RESOURCE_EXHAUSTED],
  [429, Status.RESOURCE_EXHAUSTED],
  [501, Status.UNIMPLEMENTED],
  [503, Status.UNAVAILABLE],
  [504, Status.DEADLINE_EXCEEDED],
]);

/**
 * The gRPC error a domain error with an HTTP `status` of the table is (its message kept);
 * undefined for any other error, which is an INTERNAL. Duck-typed: libs/http, which defines
 * HttpError, builds on this library.
 */
function grpcErrorOf(error: unknown): ServerError | undefined {
  const status = error instanceof Error ? (error as { status?: unknown }).status : undefined;
  const code = typeof status === 'number' ? STATUS_OF_HTTP.get(status) : undefined;
  return code === undefined ? undefined : new ServerError(code, (error as Error).message);
}

const CALLER_HEADER = 'x-quire-caller';
const CALLER_SIGNATURE_HEADER = 'x-quire-caller-signature';
const HEALTH_PATH = '/grpc.health.v1.Health/';
/** Server reflection (v1 and v1alpha): what grpcurl and other tools ask to list and describe methods. */
const REFLECTION_PATH = /^\/grpc\.reflection\.v1(alpha)?\.ServerReflection\//;

export interface GrpcServerHandle {
  server: Server;
  health: ReturnType<typeof HealthState>;
  /** Registers a service; every method runs inside the caller's request context. */
  add<S extends CompatServiceDefinition>(definition: S, implementation: ServiceImplementation<S>): void;
  /** Starts listening; resolves with the bound port. */
  listen(): Promise<number>;
  shutdown(): Promise<void>;
}

/**
 * A gRPC server with the standard health service, caller authentication (HMAC-signed
 * service assertion in metadata; health checks exempt), request ids carried into the
 * handler's context and logs, strings holding a NUL refused with INVALID_ARGUMENT, domain
 * errors (an HTTP status) turned into the matching status with their message (grpcErrorOf),
 * and unexpected errors into a bare INTERNAL (logged, never their stack).
 */
export function createGrpcServer(options: {
  host: string;
  port: number;
  secret: string;
  logger: Logger;
  /** False while the service's datastores are down: calls fail fast with UNAVAILABLE. */
  available?: () => boolean;
  /**
   * Connections older than this are closed (GOAWAY, their calls finishing first), so that
   * clients resolve their target again and replicas started since get calls too.
   */
  maxConnectionAgeMs?: number;
  /** Where to count the calls it answered (quire_grpc_server_calls_total, by method and status; health checks apart). */
  registry?: Registry;
}): GrpcServerHandle {
  const { secret, logger } = options;
  const calls = options.registry
    ? counterOf(options.registry, {
        name: 'quire_grpc_server_calls_total',
        help: 'gRPC calls this process answered',
        labelNames: ['method', 'code'] as const,
      })
    : undefined;
  // RED per method, as OpenTelemetry's rpc.server.duration (in seconds, Prometheus' unit).
  const durations = options.registry
    ? histogramOf(options.registry, {
        name: 'rpc_server_duration_seconds',
        help: 'Duration of the gRPC calls this process answered, by method and status',
        labelNames: ['rpc_method', 'rpc_grpc_status_code'] as const,
      })
    : undefined;
  const health = HealthState();
  const verifiedCallers = new WeakMap<CallContext, string>();

  async function* guard<Req, Res>(call: ServerMiddlewareCall<Req, Res>, context: CallContext) {
    // Health and reflection answer without a caller signature: they carry no data, only status and the contracts.
    const isHealth = call.method.path.startsWith(HEALTH_PATH) || REFLECTION_PATH.test(call.method.path);
    const caller = verifyCaller(secret, context.metadata.get(CALLER_HEADER), context.metadata.get(CALLER_SIGNATURE_HEADER));
    if (!isHealth && !caller) throw new ServerError(Status.UNAUTHENTICATED, 'missing or invalid caller signature');
    // The handler's request context names the verified caller (methods only some services may call).
    if (caller) verifiedCallers.set(context, caller);
    // The datastore refuses strings with a NUL: refused here, naming the field, for every method at once.
    const nul = call.method.requestStream ? undefined : nulPath(call.request);
    if (nul) throw new ServerError(Status.INVALID_ARGUMENT, `${nulFieldName(nul, 'request')}: ${NUL_MESSAGE}`);
    if (!isHealth && options.available && !options.available()) throw new ServerError(Status.UNAVAILABLE, 'datastore unavailable');
    const requestId = context.metadata.get(REQUEST_ID_HEADER) ?? randomUUID();
    const started = Date.now();
    let code = Status.OK;
    try {
      const result = yield* call.next(call.request, context);
      if (!isHealth) logger.debug({ reqId: requestId, method: call.method.path, caller, ms: Date.now() - started }, 'grpc call');
      return result;
    } catch (error) {
      code = error instanceof ServerError ? error.code : Status.UNKNOWN;
      throw error;
    } finally {
      if (!isHealth) {
        calls?.inc({ method: call.method.path, code: Status[code] });
        durations?.observe({ rpc_method: call.method.path, rpc_grpc_status_code: String(code) }, (Date.now() - started) / 1000);
      }
    }
  }

  /** What a handler threw, as the caller gets it. */
  async function* answer<Req, Res>(call: ServerMiddlewareCall<Req, Res>, context: CallContext) {
    const requestId = context.metadata.get(REQUEST_ID_HEADER);
    try {
      return yield* call.next(call.request, context);
    } catch (error) {
      if (error instanceof ServerError) throw error;
      if (error instanceof Error && error.name === 'AbortError') throw error;
      // The one mapping of domain errors (an HTTP status) to gRPC statuses, for every method of every service.
      const expected = grpcErrorOf(error);
      if (expected) throw expected;
      if (isUnavailableError(error)) {
        logger.warn({ reqId: requestId, method: call.method.path, err: (error as Error).message }, 'grpc handler: datastore unavailable');
        throw new ServerError(Status.UNAVAILABLE, 'datastore unavailable');
      }
      logger.error({ reqId: requestId, method: call.method.path, err: error }, 'grpc handler failed');
      throw new ServerError(Status.INTERNAL, 'internal error');
    }
  }

  const server = createServer(
    options.maxConnectionAgeMs ? { 'grpc.max_connection_age_ms': options.maxConnectionAgeMs, 'grpc.max_connection_age_grace_ms': 30_000 } : {},
  )
    .use(guard)
    .use(answer);
  server.add(HealthDefinition, HealthServiceImpl(health));
  addReflection(server);
  return {
    server,
    health,
    add(definition, implementation) {
      server.add(definition, withRequestContext(implementation, (context) => verifiedCallers.get(context)) as never);
      health.setStatus('healthy', fullName(definition));
    },
    listen() {
      return server.listen(`${options.host}:${options.port}`);
    },
    async shutdown() {
      health.setStatus('unhealthy');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([server.shutdown(), new Promise((r) => (timer = setTimeout(r, 5_000)))]);
      // Not left running: it would hold a process that stopped its services open for 5 s.
      clearTimeout(timer);
      server.forceShutdown();
    },
  };
}

let reflection: ReflectionService | undefined;

/**
 * gRPC server reflection for every contract in protos/ (loaded with @grpc/proto-loader), so
 * `grpcurl -plaintext <host:port> list` and `describe` work against any service. @grpc/reflection
 * registers grpc-js handlers; this adapts its one bidirectional method to nice-grpc's form.
 */
function addReflection(server: Pick<Server, 'add'>): void {
  reflection ??= new ReflectionService(loadSync(PROTO_FILES, { includeDirs: [PROTOS_DIR] }));
  reflection.addToServer({
    addService(definition, handlers) {
      const implementation: Record<string, (requests: AsyncIterable<unknown>) => AsyncGenerator<unknown>> = {};
      for (const [name, handler] of Object.entries(handlers)) {
        implementation[name] = (requests) => bidiThroughStream(handler as (stream: EventEmitter) => void, requests);
      }
      server.add(definition as never, implementation as never);
    },
  });
}

/** Runs a grpc-js style bidi handler (on 'data'/'end', write, end) over nice-grpc's request iterable. */
async function* bidiThroughStream(handler: (stream: EventEmitter) => void, requests: AsyncIterable<unknown>): AsyncGenerator<unknown> {
  const answers: unknown[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const stream = Object.assign(new EventEmitter(), {
    write(message: unknown) {
      answers.push(message);
      wake?.();
      return true;
    },
    end() {
      ended = true;
      wake?.();
    },
  });
  handler(stream);
  const feeding = (async () => {
    for await (const request of requests) stream.emit('data', request);
    stream.emit('end');
  })().catch(() => stream.end());
  for (;;) {
    while (answers.length > 0) yield answers.shift();
    if (ended) break;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
  await feeding;
}

function fullName(definition: CompatServiceDefinition): string {
  return 'fullName' in definition && typeof definition.fullName === 'string' ? definition.fullName : '';
}

/** Runs every unary method inside an AsyncLocalStorage context carrying the request id and the verified calling service. */
function withRequestContext<T extends object>(implementation: T, callerOf: (context: CallContext) => string | undefined): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(implementation)) {
    wrapped[name] =
      typeof method === 'function'
        ? (request: unknown, context: CallContext) =>
            requestContext.run({ requestId: context.metadata.get(REQUEST_ID_HEADER) ?? randomUUID(), callingService: callerOf(context) }, () =>
              method.call(implementation, request, context),
            )
        : method;
  }
  return wrapped as T;
}

/** PERMISSION_DENIED unless the current gRPC method was called by one of `services`. */
export function requireCallingService(...services: string[]): void {
  const caller = requestContext.getStore()?.callingService;
  if (!caller || !services.includes(caller)) throw new ServerError(Status.PERMISSION_DENIED, `only ${services.join(', ')} may call this method`);
}

/**
 * The channel target of a service's address (`<SERVICE>_GRPC_ADDR`): one `host:port`; several
 * `ip:port`, comma-separated (a local stack's replicas); or a resolver's target such as
 * `dns:///quire-content-grpc.quire.svc.cluster.local:50052` (a Kubernetes headless Service,
 * one address per pod). Clients spread their calls over every address (round_robin).
 */
export function grpcTarget(address: string): string {
  const parts = address
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error('invalid configuration: a gRPC address is empty');
  if (parts.length === 1) return parts[0];
  const notIp = parts.find((part) => !/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]):\d+$/.test(part));
  if (notIp) throw new Error(`invalid configuration: '${notIp}' in a list of gRPC addresses is not an ip:port (for names, use one dns:/// target)`);
  return `${parts.some((part) => part.startsWith('[')) ? 'ipv6' : 'ipv4'}:${parts.join(',')}`;
}

/** HTTP/2 flow-control window of a client's calls and connection (createGrpcClient). */
const FLOW_CONTROL_WINDOW_BYTES = 16 * 1024 * 1024;

/**
 * A client for another service: every call carries the request id and this service's
 * signed caller assertion, has a deadline, and is retried with backoff on UNAVAILABLE.
 * Calls go round robin over the replicas behind the address (grpcTarget), skipping those it
 * cannot reach: a closed connection at once, a peer that stopped answering within keepalive's
 * 2 s.
 */
export function createGrpcClient<S extends CompatServiceDefinition>(
  definition: S,
  options: { address: string; secret: string; caller: string; deadlineMs: number },
): Client<S, DeadlineOptions & RetryOptions> {
  // Reconnect quickly after a peer restarts (grpc-js waits 1 s, then up to 120 s, by default).
  const channel = createChannel(grpcTarget(options.address), ChannelCredentials.createInsecure(), {
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 2_000,
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
    'grpc.keepalive_time_ms': 1_000,
    'grpc.keepalive_timeout_ms': 1_000,
    // The answers this client may take before it says so (HTTP/2's flow-control window, per call
    // and per connection): a large answer (a space's content, megabytes) comes in one go instead
    // of in 64 KiB steps each waiting for a WINDOW_UPDATE (about a hundred milliseconds for 2 MB).
    'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW_BYTES,
  });
  const propagate: ClientMiddleware = async function* (call, callOptions) {
    const metadata = Metadata(callOptions.metadata);
    const requestId = currentRequestId();
    if (requestId) metadata.set(REQUEST_ID_HEADER, requestId);
    const { caller, signature } = signCaller(options.secret, options.caller);
    metadata.set(CALLER_HEADER, caller);
    metadata.set(CALLER_SIGNATURE_HEADER, signature);
    return yield* call.next(call.request, { ...callOptions, metadata });
  };
  return createClientFactory()
    .use(propagate)
    .use(retryMiddleware)
    .use(deadlineMiddleware)
    .create(definition, channel, {
      '*': {
        deadline: options.deadlineMs,
        retry: true,
        retryMaxAttempts: 3,
        retryBaseDelayMs: 100,
        retryMaxDelayMs: 1_000,
        retryableStatuses: [Status.UNAVAILABLE],
      },
    }) as Client<S, DeadlineOptions & RetryOptions>;
}

export { ClientError };

/** A health-check client for a gRPC server (grpc.health.v1). */
export function createHealthClient(options: { address: string; secret: string; caller: string }) {
  return createGrpcClient(HealthDefinition, { ...options, deadlineMs: 1_000 });
}

/** True when the server answers SERVING within `timeoutMs`. */
export async function isServing(client: ReturnType<typeof createHealthClient>, timeoutMs = 1_000): Promise<boolean> {
  try {
    const response = await client.check({ service: '' }, { deadline: timeoutMs, retry: false });
    return response.status === 1; // SERVING
  } catch {
    return false;
  }
}
