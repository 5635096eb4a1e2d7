import type { SpaceDoc } from '../kernel';
import {
  commitSpaceRevision,
  loadRevision,
  MAX_FILE_BYTES,
  MAX_VARIABLE_NAME,
  MAX_VARIABLE_VALUE,
  MAX_VARIABLES,
  VARIABLE_NAME,
  VARIABLE_NAME_RULE,
  writeBuiltRevision,
  type RevisionDoc,
  type RevisionGitDoc,
} from '../revisions';
import { GitSyncError } from './errors';
import { buildImportedContent, referencedAssets, sameContent, type RepositorySnapshot } from './import-content';
import { gitbookLayout, normalizeRepoPath, planFromDirectories, planFromSummary, type PagePlan, type RepoFile } from './layout';
import { PageFileError, parsePageFile, parseSummary, parseYamlMap, type ParsedPageFile } from './markdown';
import { branchOf, shortOid, type OperationResult, type OperationRun } from './operation';
import { commitMessage, fetchBranch, listTree, readBlobs, RepositoryTooLargeError, type GitSession } from './runner';

/*
 * Import: fetch the branch tip, read the layout and every page file into memory, then one
 * commitSpaceRevision (or one standalone revision). Nothing is written before the end, so
 * a failure leaves the space as it was.
 */

function planFiles(plans: PagePlan[], out: RepoFile[] = []): RepoFile[] {
  for (const plan of plans) {
    if (plan.file) out.push(plan.file);
    planFiles(plan.children, out);
  }
  return out;
}

/** True when the space's primary content moved since the last sync (or has pages and never synced). */
function hasUnexportedChanges(run: OperationRun, revision: Pick<RevisionDoc, '_id' | 'pages'>): boolean {
  const synced = run.state.syncedRevision;
  return synced ? revision._id !== synced : revision.pages.length > 0;
}

function refuseUnexported(run: OperationRun): never {
  throw new GitSyncError(
    run.state.syncedRevision
      ? 'The space has changes that were not exported to the repository since the last sync: export them first, or import with force to replace them'
      : 'The space already has content that was never exported to the repository: export it first, or import with force to replace it',
  );
}

/** Reads text files of the commit, within what is left of the byte budget. */
class BlobReader {
  private left: number;

  constructor(
    private readonly session: GitSession,
    maxBytes: number,
  ) {
    this.left = maxBytes;
  }

  async read(files: readonly RepoFile[]): Promise<Map<string, Buffer>> {
    const size = files.reduce((sum, file) => sum + file.size, 0);
    if (size > this.left) throw new RepositoryTooLargeError('the repository content to import is larger than the configured maximum (GIT_MAX_BYTES)');
    this.left -= size;
    const blobs = await readBlobs(
      this.session,
      files.map((file) => file.oid),
      size,
    );
    return new Map(files.map((file) => [file.path, blobs.get(file.oid) ?? Buffer.alloc(0)]));
  }
}

// The limits every other writer of content obeys (content changes, the API's page schema):
// a repository does not get around them.
const MAX_PAGE_MARKDOWN = 1_000_000;

function checkVariables(variables: Record<string, string> | undefined, where: string): void {
  if (!variables) return;
  const names = Object.keys(variables);
  if (names.length > MAX_VARIABLES) throw new PageFileError(`${where}: at most ${MAX_VARIABLES} variables`);
  for (const name of names) {
    if (name.length > MAX_VARIABLE_NAME || !VARIABLE_NAME.test(name))
      throw new PageFileError(`${where}: "${name.slice(0, 80)}": ${VARIABLE_NAME_RULE} (at most ${MAX_VARIABLE_NAME} characters)`);
    if (variables[name].length > MAX_VARIABLE_VALUE) throw new PageFileError(`${where}: ${name}: at most ${MAX_VARIABLE_VALUE} characters`);
  }
}

async function snapshotOf(run: OperationRun, commit: string): Promise<RepositorySnapshot> {
  const { session, settings, job } = run;
  await run.stage('config_check');
  const entries = await listTree(session, commit);
  const blobs = new Map<string, RepoFile>();
  const dirs = new Set<string>();
  for (const entry of entries) {
    // Symbolic links and submodules are not content.
    if (entry.type !== 'blob' || entry.mode === '120000') continue;
    blobs.set(entry.path, { path: entry.path, oid: entry.oid, size: entry.size });
    const segments = entry.path.split('/');
    for (let i = 1; i < segments.length; i += 1) dirs.add(segments.slice(0, i).join('/'));
  }
  if (blobs.size > settings.GIT_MAX_FILES) throw new RepositoryTooLargeError(`the repository has more than ${settings.GIT_MAX_FILES} files (GIT_MAX_FILES)`);
  const projectDirectory = normalizeRepoPath(job.projectDirectory) ?? '';
  if (projectDirectory && !dirs.has(projectDirectory))
    throw new GitSyncError(`The project directory "${projectDirectory}" does not exist on ${branchOf(job.ref)}`);

  const reader = new BlobReader(session, settings.GIT_MAX_BYTES);
  const text = async (file: RepoFile | undefined) => (file ? ((await reader.read([file])).get(file.path)?.toString('utf8') ?? '') : null);
  const layout = gitbookLayout(projectDirectory, await text(blobs.get(projectDirectory ? `${projectDirectory}/.gitbook.yaml` : '.gitbook.yaml')));
  if (layout.root && !dirs.has(layout.root))
    throw new GitSyncError(`The documentation root "${layout.root}" (.gitbook.yaml root) does not exist on ${branchOf(job.ref)}`);

  await run.stage('content_process');
  const summary = await text(blobs.get(layout.summary));
  const plans = summary === null ? planFromDirectories(layout, blobs) : planFromSummary(parseSummary(summary), layout, blobs);
  const varsText = await text(blobs.get(layout.root ? `${layout.root}/.gitbook/vars.yaml` : '.gitbook/vars.yaml'));
  const variables = varsText === null ? undefined : stringValues(parseYamlMap(varsText, '.gitbook/vars.yaml'));
  checkVariables(variables, '.gitbook/vars.yaml');

  const pageFiles = new Map<string, ParsedPageFile>();
  for (const [file, data] of await reader.read(planFiles(plans))) {
    const parsed = parsePageFile(data.toString('utf8'), file);
    if (parsed.body.length > MAX_PAGE_MARKDOWN) throw new PageFileError(`${file}: the page is longer than ${MAX_PAGE_MARKDOWN} characters`);
    checkVariables(parsed.meta.variables, `${file} front matter vars`);
    pageFiles.set(file, parsed);
  }
  const assetPaths = referencedAssets({ pageFiles, blobs, root: layout.root });
  for (const file of assetPaths) {
    if ((blobs.get(file) as RepoFile).size > MAX_FILE_BYTES) throw new PageFileError(`${file}: the file is larger than ${MAX_FILE_BYTES} bytes`);
  }
  const assets = await reader.read([...assetPaths].map((file) => blobs.get(file) as RepoFile));
  return { plans, pageFiles, blobs, dirs, assets, root: layout.root, variables, ...(job.repoTreeURL ? { treeUrl: job.repoTreeURL } : {}) };
}

function stringValues(map: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map)) if (value !== null && typeof value !== 'object') out[key] = String(value);
  return out;
}

export async function runImport(run: OperationRun): Promise<OperationResult> {
  const { ctx, job, settings, session } = run;
  await run.stage('repo_fetch');
  const commit = await fetchBranch(session, job.url, job.ref, settings.GIT_MAX_BYTES);
  if (!commit) throw new GitSyncError(`The branch ${branchOf(job.ref)} does not exist in the repository`);
  const timestamp = job.timestamp ? new Date(job.timestamp) : null;

  const space = await ctx.models.Space.findById(job.spaceId).lean<SpaceDoc>();
  if (!space || space.deletedAt) throw new GitSyncError('The space no longer exists');
  const current = await loadRevision(ctx, space.revisionId);
  if (!job.standalone && !job.force && hasUnexportedChanges(run, current)) refuseUnexported(run);

  let snapshot: RepositorySnapshot;
  try {
    snapshot = await snapshotOf(run, commit);
  } catch (error) {
    if (error instanceof PageFileError) throw new GitSyncError(`Invalid content on ${branchOf(job.ref)} at ${shortOid(commit)}: ${error.message}`);
    throw error;
  }

  await run.stage('finalize');
  run.session.signal.throwIfAborted();
  const git: RevisionGitDoc = {
    oid: commit,
    message: await commitMessage(session, commit),
    createdByService: (run.state.exportedCommits ?? []).includes(commit),
    ref: job.ref,
    ...(job.repoCommitURL ? { url: `${job.repoCommitURL.replace(/\/+$/, '')}/${commit}` } : {}),
  };
  if (job.standalone) {
    const revision = await writeBuiltRevision(ctx, job.spaceId, [current._id], job.userId, buildImportedContent(snapshot, current, git));
    return { commit, revisionId: revision._id, sync: null };
  }
  const built = buildImportedContent(snapshot, current, git);
  const synced = (revisionId: string): OperationResult => ({
    commit,
    revisionId,
    sync: { commit, revisionId, timestamp, exported: false, resetHistory: false },
  });
  // The repository holds what the space holds (e.g. the webhook of our own export): no new revision.
  if (sameContent(current, built)) return synced(current._id);
  const { revision } = await commitSpaceRevision(ctx, job.spaceId, job.userId, (latest) => {
    // Checked again on the content being replaced: an edit may have landed since the first check.
    if (!job.force && hasUnexportedChanges(run, latest)) refuseUnexported(run);
    return latest._id === current._id ? built : buildImportedContent(snapshot, latest, git);
  });
  return synced(revision._id);
}
