import type { Response } from 'express';

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
  res.set(headers).status(status).json({ error: { code: status, message } });
}
