import { trace } from '@opentelemetry/api';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from './logger';

/**
 * How many bytes the request line and headers of one request may take. Above node's 16 KB
 * default so that a URL up to MAX_URL_BYTES passes with ordinary headers (and, through the
 * gateway, with the headers it adds); larger requests get a 431.
 */
export const MAX_HEADER_BYTES = 32 * 1024;

/** The longest URL (path and query) the gateway takes: longer ones get a 414. */
export const MAX_URL_BYTES = 16 * 1024;

const STATUS_OF: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, `Request header fields too large: the request line and headers are limited to ${MAX_HEADER_BYTES} bytes`],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timeout'],
};

const answered = new WeakSet<Duplex>();

/**
 * Answers a request node's HTTP parser refused (headers too large, malformed) with the API's
 * error body instead of node's bare answer. The connection is ended, not destroyed: destroying
 * it with the rest of the request still unread makes the kernel reset it, and the client sees
 * a reset instead of the answer. What the client still sends is read and dropped until it
 * closes, for a few seconds at most.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // The parser reports every later chunk of the same request too: answered once.
  if (answered.has(socket)) return;
  // Nothing to say to a peer that is gone, nor inside a response that has begun.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, message] = STATUS_OF[error.code ?? ''] ?? [400, 'Bad request: the request is not valid HTTP'];
  const body = JSON.stringify({ error: { code: status, message } });
  answered.add(socket);
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), 5_000).unref();
  socket.once('close', () => clearTimeout(timer));
}

export interface ServiceHandle {
  httpPort?: number;
  grpcPort?: number;
  stop(): Promise<void>;
}

interface Stoppable {
  listen(): Promise<number>;
  shutdown(): Promise<void>;
}

/** How long a stopping process waits for its last spans to be exported. */
const TRACE_FLUSH_MS = 2_000;

/** Exports the spans still buffered (when tracing runs: @quire/telemetry), within TRACE_FLUSH_MS. */
async function flushTraces(logger: Logger): Promise<void> {
  const provider = trace.getTracerProvider() as { getDelegate?: () => unknown };
  const delegate = (provider.getDelegate?.() ?? provider) as { forceFlush?: () => Promise<void> };
  if (!delegate.forceFlush) return;
  await Promise.race([delegate.forceFlush(), new Promise((resolve) => setTimeout(resolve, TRACE_FLUSH_MS).unref())]).catch((error: unknown) =>
    logger.warn({ err: (error as Error).message }, 'could not export the last spans'),
  );
}

/**
 * Starts a service's HTTP listener and gRPC server, and stops them in order on SIGTERM
 * or SIGINT: stop accepting, finish in-flight requests, then release connections.
 */
export async function runService(options: {
  name: string;
  logger: Logger;
  host: string;
  httpPort?: number;
  httpHandler?: http.RequestListener;
  grpc?: Stoppable;
  onStop?: () => Promise<void>;
  handleSignals?: boolean;
  /**
   * Stopping begins with this long a drain: `onDrain` is called (the service reports not ready),
   * requests are still served, each answer closing its connection, and only then do the listeners close.
   */
  drainMs?: number;
  onDrain?: () => void;
}): Promise<ServiceHandle> {
  const { logger } = options;
  let httpServer: http.Server | undefined;
  let draining = false;
  if (options.httpHandler && options.httpPort !== undefined) {
    const handler = options.httpHandler;
    httpServer = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
      // A draining process keeps no connection open: the next request opens one to another replica.
      if (draining) res.setHeader('connection', 'close');
      handler(req, res);
    });
    httpServer.keepAliveTimeout = 65_000;
    httpServer.on('clientError', answerClientError);
    await new Promise<void>((resolve, reject) => {
      httpServer!.once('error', reject);
      httpServer!.listen(options.httpPort, options.host, () => resolve());
    });
  }
  const grpcPort = await options.grpc?.listen();
  const httpPort = httpServer ? (httpServer.address() as { port: number }).port : undefined;
  logger.info({ httpPort, grpcPort }, `${options.name} started`);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info(`${options.name} stopping`);
      draining = true;
      options.onDrain?.();
      if (options.drainMs) await new Promise((resolve) => setTimeout(resolve, options.drainMs));
      const closing = httpServer
        ? new Promise<void>((resolve) => {
            httpServer!.close(() => resolve());
            httpServer!.closeIdleConnections();
            setTimeout(() => httpServer!.closeAllConnections(), 5_000).unref();
          })
        : Promise.resolve();
      await Promise.all([closing, options.grpc?.shutdown()]);
      await options.onStop?.();
      await flushTraces(logger);
      logger.info(`${options.name} stopped`);
    })());

  // Started by a supervisor (npm start)? Then do not outlive it, even if it is killed hard.
  const supervisor = Number(process.env.QUIRE_SUPERVISOR_PID);
  if (supervisor > 0 && options.handleSignals !== false) {
    setInterval(() => {
      if (process.ppid !== supervisor) {
        logger.warn('supervisor is gone; stopping');
        void stop().then(() => process.exit(0));
      }
    }, 1_000).unref();
  }

  if (options.handleSignals !== false) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.on(signal, () => {
        stop()
          .then(() => process.exit(0))
          .catch((error) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          });
      });
    }
  }
  return { httpPort, grpcPort, stop };
}

/** Entry point of a service process: start it, or print why it could not start and exit 1. */
export function runMain(service: string, start: () => Promise<unknown>): void {
  start().catch((error) => {
    console.error(`${service} failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
