import { z } from 'zod';
import { timestamp } from './common';
import { gitSync } from './spaces';

/**
 * The latest import or export of a space (OpenAPI GitSyncSpaceOperation), with `endedAt` (OpenAPI
 * GitSyncState.operation), the `commit` imported or pushed and the `revision` an import made.
 */
export const gitSyncOperation = z
  .object({
    state: z.enum(['running', 'failure', 'success', 'timeout']),
    direction: z.enum(['import', 'export']),
    stage: z.enum(['repo_fetch', 'config_check', 'content_process', 'finalize']),
    dispatchedTasks: z.number(),
    completedTasks: z.number(),
    startedAt: timestamp,
    updatedAt: timestamp,
    endedAt: timestamp.optional(),
    completedAt: timestamp.optional(),
    error: z.string().optional(),
    commit: z.string().optional(),
    revision: z.string().optional(),
  })
  .meta({ id: 'GitSyncSpaceOperation' });

/** spec "Git info" (OpenAPI GitSyncState): the repository a space syncs with and its latest operation. */
export const gitSyncState = gitSync
  .extend({
    operationTimeout: z.number().int().min(0),
    operation: gitSyncOperation.optional(),
  })
  .meta({ id: 'GitSyncState' });
