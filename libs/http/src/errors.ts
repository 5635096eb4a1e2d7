import type { Response } from 'express';
import { ClientError, type grpcStatus } from '@quire/runtime';

type Status = (typeof grpcStatus)[keyof typeof grpcStatus];

/** An expected failure with its HTTP status; its message is shown to the caller. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const httpError = {
  badRequest: (message: string) => new HttpError(400, message),
  unauthorized: (message = 'Authentication required: send Authorization: Bearer <token>') => new HttpError(401, message),
  forbidden: (message = 'You do not have permission to do this') => new HttpError(403, message),
  /** Also what the caller gets for something that exists but that they may not see. */
  notFound: (what: string) => new HttpError(404, `${what} not found`),
  conflict: (message: string) => new HttpError(409, message),
  preconditionFailed: (message: string) => new HttpError(412, message),
  tooLarge: (message = 'Request body too large') => new HttpError(413, message),
  unavailable: (message: string) => new HttpError(503, message),
};

/**
 * The one error body of the API (design.md §3). A 503 always says when to retry: `Retry-After: 1`
 * unless the error gives its own (an outage is short: README, "Security and faults").
 */
export function sendError(res: Response, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res
    .set(status === 503 ? { 'Retry-After': '1', ...headers } : headers)
    .status(status)
    .json({ error: { code: status, message } });
}

/**
 * A call to another service that failed: the request is a 503 naming that service (never a 500),
 * and `code` and `details` tell what it answered (a gRPC status), for the callers that expect
 * some failures (NOT_FOUND, ABORTED…).
 */
export class ServiceError extends HttpError {
  constructor(
    readonly service: string,
    readonly code: Status,
    readonly details: string,
  ) {
    super(503, `${service} service unavailable`);
    this.name = 'ServiceError';
  }
}

/**
 * Awaits a call to another service (`service` names it: 'Identity', 'Content', …): its failure
 * is a ServiceError. Only the typed clients (service-clients.ts) call it.
 */
export async function fromService<T>(service: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ClientError) throw new ServiceError(service, error.code, error.details);
    throw error;
  }
}
