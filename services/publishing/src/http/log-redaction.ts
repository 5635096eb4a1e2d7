import type { Logger } from '@quire/runtime';

/**
 * Query parameters that carry secrets on publishing's routes: the share key of a
 * share link, and a visitor's JWT (both live in query strings by contract).
 */
const SECRET_QUERY = /([?&](?:shareKey|share|visitorAuthToken|jwt_token)=)[^&#]*/gi;

/**
 * The credential paths the runtime logger already redacts. A child logger's `redact`
 * replaces its parent's, so they are repeated here (keep in step with @quire/runtime).
 */
const CREDENTIAL_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-quire-principal"]',
  'req.headers["x-quire-signature"]',
  '*.token',
  '*.password',
  '*.secret',
  '*.secrets',
];

/** `url` with the value of every secret query parameter replaced. */
export function redactSecretQuery(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

/**
 * A logger that also keeps share keys and visitor tokens out of request lines: the
 * service's access log prints each request's url, query string included.
 */
export function withSecretQueryRedaction(logger: Logger): Logger {
  return logger.child(
    {},
    {
      redact: {
        paths: [...CREDENTIAL_PATHS, 'req.url'],
        censor: (value: unknown, path: string[]) =>
          path[path.length - 1] === 'url' && typeof value === 'string' ? redactSecretQuery(value) : '[redacted]',
      },
    },
  );
}
