/** An expected reason for an operation to fail, recorded as its error (never holds credentials). */
export class GitSyncError extends Error {
  constructor(
    message: string,
    /** More than git info may show (an internal address, a range), for the service log only. */
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** The operation ran longer than GIT_OPERATION_TIMEOUT_MS (recorded as state `timeout`). */
export class OperationTimeoutError extends Error {}
