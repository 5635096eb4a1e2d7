import type { ContentContext } from '../kernel';
import type { GitOperationStage, GitSyncDoc } from './git-store';
import type { RemoteCredentials } from './remote';
import type { GitSession } from './runner';
import type { GitConfig } from './settings';
import type { SyncPoint } from './state';

/** A queued import or export (what the job carries; credentials only sealed). */
export interface GitJobData {
  operationId: string;
  direction: 'import' | 'export';
  spaceId: string;
  /** The space's organization: its jobs take turns with other organizations' (absent in jobs queued before it was added). */
  organizationId?: string;
  userId: string;
  /** Repository address without credentials. */
  url: string;
  sealedCredentials: string | null;
  ref: string;
  projectDirectory: string;
  repoTreeURL: string | null;
  repoCommitURL: string | null;
  commitMessage: string | null;
  /** ISO date-time of the triggering event. */
  timestamp: string | null;
  force: boolean;
  standalone: boolean;
}

/** What an import or export runs with. */
export interface OperationRun {
  ctx: ContentContext;
  job: GitJobData;
  settings: GitConfig;
  session: GitSession;
  credentials: RemoteCredentials | null;
  /** The space's sync state when the job started. */
  state: GitSyncDoc;
  stage(stage: GitOperationStage): Promise<void>;
}

export interface OperationResult {
  commit: string;
  revisionId: string | null;
  /** Where the space and the branch are equal afterwards (null: a standalone import). */
  sync: SyncPoint | null;
}

export const branchOf = (ref: string) => ref.slice('refs/heads/'.length);
export const shortOid = (oid: string) => oid.slice(0, 12);
