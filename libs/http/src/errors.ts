import type { Response } from 'express';
import { ClientError } from '@quire/runtime';

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

/** The one error body of the API (design.md §3). */
export function sendError(res: Response, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res
    .set(headers)
    .status(status)
    .json({ error: { code: status, message } });
}

/**
 * Awaits a call to another service (`service` names it: 'Identity', 'Content', …). When
 * that service cannot answer, the request fails with a 503 saying so instead of a 500.
 */
export async function fromService<T>(service: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ClientError) throw httpError.unavailable(`${service} service unavailable`);
    throw error;
  }
}
