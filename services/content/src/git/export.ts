import type { SpaceDoc } from '../kernel';
import { loadBodies, loadRevision, type FileBlobDoc } from '../revisions';
import { GitSyncError } from './errors';
import { isManagedPath, renderRepository, type ExportLayout } from './export-content';
import { gitbookLayout, isMarkdown, normalizeRepoPath, planFromDirectories, planFromSummary, type GitbookLayout, type PagePlan, type RepoFile } from './layout';
import { PageFileError, parseSummary, parseYamlMap } from './markdown';
import { branchOf, shortOid, type OperationResult, type OperationRun } from './operation';
import { fetchBranch, listTree, pushCommit, readBlobs, RepositoryTooLargeError, treeOfCommit, writeCommit, type TreeEntry } from './runner';

/*
 * Export: the space's current revision as one commit on top of the branch tip, pushed as
 * a fast-forward. The branch has diverged when its tip is neither the commit this space
 * last synced with nor one of that commit's ancestors (the commits synced before it);
 * a diverged branch is only overwritten with `force` (its files are replaced by a commit
 * on top of its tip, so its history stays).
 */

/** The export's layout: the project's existing .gitbook.yaml is honoured (root, readme and summary paths, other keys). */
async function layoutOf(run: OperationRun, head: string | null, tree: TreeEntry[]): Promise<ExportLayout & { readme: string }> {
  const projectDirectory = normalizeRepoPath(run.job.projectDirectory) ?? '';
  const configPath = projectDirectory ? `${projectDirectory}/.gitbook.yaml` : '.gitbook.yaml';
  const existing = head ? tree.find((entry) => entry.path === configPath && entry.type === 'blob') : undefined;
  const text = existing ? ((await readBlobs(run.session, [existing.oid], existing.size + 1)).get(existing.oid)?.toString('utf8') ?? '') : null;
  try {
    const layout = gitbookLayout(projectDirectory, text);
    const { root: _root, structure: _structure, ...config } = text === null ? {} : parseYamlMap(text, '.gitbook.yaml');
    return { projectDirectory, root: layout.root, readme: layout.readme, summary: layout.summary, config };
  } catch (error) {
    // An unreadable configuration is replaced by ours.
    if (!(error instanceof PageFileError)) throw error;
    const layout = gitbookLayout(projectDirectory, null);
    return { projectDirectory, root: layout.root, readme: layout.readme, summary: layout.summary, config: {} };
  }
}

/**
 * The page files the branch holds, read as an import reads them (its SUMMARY.md, else the
 * directory layout): the markdown an export replaces. Other markdown (a CONTRIBUTING.md
 * next to a SUMMARY.md that does not list it) is not content and stays.
 */
async function currentPageFiles(run: OperationRun, tree: TreeEntry[], layout: GitbookLayout): Promise<Set<string>> {
  const blobs = new Map<string, RepoFile>();
  for (const entry of tree) if (entry.type === 'blob' && entry.mode !== '120000') blobs.set(entry.path, { path: entry.path, oid: entry.oid, size: entry.size });
  const summary = blobs.get(layout.summary);
  const text = summary ? (await readBlobs(run.session, [summary.oid], summary.size + 1)).get(summary.oid)?.toString('utf8') : undefined;
  const plans = text === undefined ? planFromDirectories(layout, blobs) : planFromSummary(parseSummary(text), layout, blobs);
  const files = new Set<string>();
  const visit = (list: PagePlan[]) => {
    for (const plan of list) {
      if (plan.file) files.add(plan.file.path);
      visit(plan.children);
    }
  };
  visit(plans);
  return files;
}

export async function runExport(run: OperationRun): Promise<OperationResult> {
  const { ctx, job, settings, session, state } = run;
  const branch = branchOf(job.ref);
  await run.stage('repo_fetch');
  const head = await fetchBranch(session, job.url, job.ref, settings.GIT_MAX_BYTES);

  await run.stage('config_check');
  const diverged = head !== null && head !== state.syncedCommit && !(state.syncedHistory ?? []).includes(head);
  if (diverged && !job.force) {
    throw new GitSyncError(
      `The branch ${branch} has diverged: its head ${shortOid(head)} is not a commit this space was synced with. Import it first, or export with force to overwrite it`,
    );
  }
  const tree = head ? await listTree(session, head) : [];
  if (tree.length > settings.GIT_MAX_FILES) throw new RepositoryTooLargeError(`the repository has more than ${settings.GIT_MAX_FILES} files (GIT_MAX_FILES)`);
  const layout = await layoutOf(run, head, tree);

  await run.stage('content_process');
  const space = await ctx.models.Space.findById(job.spaceId).lean<SpaceDoc>();
  if (!space || space.deletedAt) throw new GitSyncError('The space no longer exists');
  const revision = await loadRevision(ctx, space.revisionId);
  const bodies = await loadBodies(ctx, revision.pages);
  const blobs = new Map<string, Buffer>();
  for (const file of revision.files) {
    if (blobs.has(file.blobHash)) continue;
    const blob = await ctx.models.FileBlob.findById(file.blobHash).lean<FileBlobDoc>();
    // Lean reads give the driver's Binary, whose bytes are its `buffer`.
    if (blob) blobs.set(file.blobHash, Buffer.isBuffer(blob.data) ? blob.data : Buffer.from((blob.data as unknown as { buffer: Uint8Array }).buffer));
  }
  const { files } = renderRepository(revision, bodies, blobs, layout);
  const bytes = [...files.values()].reduce((sum, data) => sum + data.length, 0);
  if (files.size > settings.GIT_MAX_FILES || bytes > settings.GIT_MAX_BYTES) {
    throw new RepositoryTooLargeError(`the space's content is larger than the configured maximum (${files.size} files, ${bytes} bytes)`);
  }

  await run.stage('finalize');
  const pageFiles = await currentPageFiles(run, tree, layout);
  const removals = tree
    .filter(
      (entry) => entry.type === 'blob' && !files.has(entry.path) && isManagedPath(entry.path, layout) && (!isMarkdown(entry.path) || pageFiles.has(entry.path)),
    )
    .map((entry) => entry.path);
  const identity = { name: settings.GIT_COMMITTER_NAME, email: settings.GIT_COMMITTER_EMAIL };
  const created = await writeCommit(session, { parent: head, message: job.commitMessage ?? '', identity, files, removals });
  // A standalone export is a snapshot: the space's sync point stays where it was.
  const sync = (commit: string, exported: boolean) => ({
    commit,
    revisionId: revision._id,
    sync: job.standalone
      ? null
      : { commit, revisionId: revision._id, timestamp: job.timestamp ? new Date(job.timestamp) : null, exported, resetHistory: diverged },
  });
  // The branch already holds exactly this content: no empty commit.
  if (head && (await treeOfCommit(session, created)) === (await treeOfCommit(session, head))) return sync(head, false);
  session.signal.throwIfAborted();
  if (!(await pushCommit(session, job.url, created, job.ref))) throw new GitSyncError(`The branch ${branch} moved while the export was running: run it again`);
  return sync(created, true);
}
