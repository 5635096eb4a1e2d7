import pino from 'pino';
import { requestContext } from './context';

export type Logger = pino.Logger;

/**
 * JSON logs with the request id of the current request mixed into every line.
 * Credentials are redacted wherever they could appear.
 */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const store = requestContext.getStore();
      return store ? { reqId: store.requestId } : {};
    },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-quire-principal"]',
        'req.headers["x-quire-signature"]',
        '*.token',
        '*.password',
        '*.secret',
        '*.secrets',
      ],
      censor: '[redacted]',
    },
  });
}
