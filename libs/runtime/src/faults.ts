/**
 * Errors that mean "a datastore cannot answer right now" (the database or Redis is down,
 * restarting or unreachable): callers get a 503 / UNAVAILABLE and retry, never a 500.
 */
const MONGO_UNAVAILABLE = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'MongoServerClosedError',
  'MongoPoolClosedError',
  'PoolClearedOnNetworkError',
  'MongoWaitQueueTimeoutError',
  'MongoClientClosedError',
  'MongoOperationTimeoutError',
]);
/** Socket errors a driver sometimes lets through unwrapped (the MongoDB driver's EPIPE on a closed socket). */
const SOCKET_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT']);
const REDIS_UNAVAILABLE = /^(Connection is closed|Stream isn't writeable|Reached the max retries per request limit)/;

export function isUnavailableError(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error)) return false;
  // A wrapper (a driver or library error) around a lost connection is the same outage.
  if (depth < 3 && error.cause && isUnavailableError(error.cause, depth + 1)) return true;
  // A lock still busy after its wait (a document being written, a datastore that stalls): retry.
  if (MONGO_UNAVAILABLE.has(error.name) || error.name === 'MaxRetriesPerRequestError' || error.name === 'LockBusyError') return true;
  // mongoose's own "buffering timed out" while it waits for a lost connection to come back.
  if (error.name === 'MongooseError' && /buffering timed out|Connection was force closed|Client must be connected/.test(error.message)) return true;
  if (SOCKET_CODES.has((error as NodeJS.ErrnoException).code ?? '')) return true;
  return REDIS_UNAVAILABLE.test(error.message);
}
