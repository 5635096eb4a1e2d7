import { Schema, type Model } from 'mongoose';
import type { ModelDefinitions } from '@quire/runtime';
import type { ContentModels } from '../kernel';

export type GitOperationState = 'running' | 'success' | 'failure' | 'timeout';
export type GitOperationDirection = 'import' | 'export';
export type GitOperationStage = 'repo_fetch' | 'config_check' | 'content_process' | 'finalize';

/** The latest requested import or export of a space (OpenAPI GitSyncSpaceOperation). */
export interface GitOperationDoc {
  id: string;
  state: GitOperationState;
  direction: GitOperationDirection;
  stage: GitOperationStage;
  startedAt: Date;
  updatedAt: Date;
  /** When the operation ended, whatever its outcome. */
  endedAt: Date | null;
  /** Why it failed or was skipped; never holds credentials. */
  error: string | null;
  /** The commit imported or pushed. */
  commit: string | null;
  /** The revision an import produced (also a standalone one). */
  revisionId: string | null;
}

/**
 * A space's Git sync state (one per space, _id = space id). The repository address is
 * stored without credentials. `syncedCommit`/`syncedRevision` are the last point where
 * the space's primary content and the branch were known to be equal (after an import or
 * an export); `syncedHistory` lists the commits synced since the last forced export,
 * newest first: each is an ancestor of the next one.
 */
export interface GitSyncDoc {
  _id: string;
  organizationId: string;
  installationId: string;
  /** Repository address without credentials. */
  url: string;
  ref: string;
  provider: 'github' | 'gitlab';
  /** gitInfo.url: the repository tree address shown to readers. */
  treeUrl: string | null;
  repoName: string;
  createdAt: Date;
  updatedAt: Date;
  operation: GitOperationDoc | null;
  syncedCommit: string | null;
  syncedRevision: string | null;
  syncedHistory: string[];
  /** Commits our exports pushed (newest first, bounded): an import of one is `createdByService`. */
  exportedCommits: string[];
  /** Timestamp of the newest applied operation that carried one. */
  lastTimestamp: Date | null;
}

/** What the Space object shows of a space's Git sync state (Space.gitSync). */
export type GitSyncSummary = Pick<GitSyncDoc, '_id' | 'installationId' | 'provider' | 'repoName' | 'url' | 'treeUrl' | 'updatedAt'>;
export const GIT_SYNC_SUMMARY_FIELDS = { installationId: 1, provider: 1, repoName: 1, url: 1, treeUrl: 1, updatedAt: 1 } as const;

const operationSchema = new Schema<GitOperationDoc>(
  {
    id: String,
    state: String,
    direction: String,
    stage: String,
    startedAt: Date,
    updatedAt: Date,
    endedAt: { type: Date, default: null },
    error: { type: String, default: null },
    commit: { type: String, default: null },
    revisionId: { type: String, default: null },
  },
  { _id: false },
);

const gitSyncSchema = new Schema<GitSyncDoc>(
  {
    _id: String,
    organizationId: { type: String, required: true },
    installationId: { type: String, required: true },
    url: { type: String, required: true },
    ref: { type: String, required: true },
    provider: { type: String, required: true },
    treeUrl: { type: String, default: null },
    repoName: { type: String, default: '' },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    operation: { type: operationSchema, default: null },
    syncedCommit: { type: String, default: null },
    syncedRevision: { type: String, default: null },
    syncedHistory: { type: [String], default: [] },
    exportedCommits: { type: [String], default: [] },
    lastTimestamp: { type: Date, default: null },
  },
  { versionKey: false },
);

declare module '../kernel' {
  interface ContentModels {
    GitSync: Model<GitSyncDoc>;
  }
}

export const gitModelDefinitions: ModelDefinitions<Pick<ContentModels, 'GitSync'>> = {
  GitSync: [gitSyncSchema, 'git_sync_states'],
};
