import http from 'node:http';
import type { Logger } from './logger';

export interface ServiceHandle {
  httpPort?: number;
  grpcPort?: number;
  stop(): Promise<void>;
}

interface Stoppable {
  listen(): Promise<number>;
  shutdown(): Promise<void>;
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
}): Promise<ServiceHandle> {
  const { logger } = options;
  let httpServer: http.Server | undefined;
  if (options.httpHandler && options.httpPort !== undefined) {
    httpServer = http.createServer(options.httpHandler);
    httpServer.keepAliveTimeout = 65_000;
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
      const closing = httpServer
        ? new Promise<void>((resolve) => {
            httpServer!.close(() => resolve());
            httpServer!.closeIdleConnections();
            setTimeout(() => httpServer!.closeAllConnections(), 5_000).unref();
          })
        : Promise.resolve();
      await Promise.all([closing, options.grpc?.shutdown()]);
      await options.onStop?.();
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
