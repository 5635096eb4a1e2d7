import { z } from 'zod';
import { isInGitDirectory, normalizeRepoPath } from './layout';

/** Request schemas of the git routes (OpenAPI importGitRepository, exportToGitRepository). */

/** `refs/heads/<branch>` with a branch name git accepts (git check-ref-format rules). */
function isBranchRef(ref: string): boolean {
  if (!ref.startsWith('refs/heads/') || ref.length > 255) return false;
  const branch = ref.slice('refs/heads/'.length);
  if (branch === '' || branch === '@' || branch.endsWith('/') || branch.endsWith('.')) return false;
  if (/[\u0000-\u0020\u007f~^:?*[\\]|\.\.|@\{|\/\//.test(branch)) return false;
  return branch.split('/').every((component) => component !== '' && !component.startsWith('.') && !component.endsWith('.lock'));
}

// Shown to readers (git info, Space.gitSync, commit and file links): never with credentials in it.
const webUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) address' })
  .max(2048)
  .refine((value) => {
    const url = URL.parse(value);
    return !url?.username && !url?.password;
  }, 'must not contain credentials');

// A timestamp from the future would be the newest forever and make every later event look older.
const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

const operationBody = z.object({
  url: z.string().min(1).max(2048),
  ref: z.string().refine(isBranchRef, 'must be a branch ref of the form refs/heads/<branch>'),
  repoCacheID: z.string().max(256).optional(),
  repoTreeURL: webUrl.optional(),
  repoCommitURL: webUrl.optional(),
  repoProjectDirectory: z
    .string()
    .max(1024)
    .refine((value) => {
      const directory = normalizeRepoPath(value);
      return directory !== null && !isInGitDirectory(directory);
    }, 'must be a directory inside the repository (not in .git)')
    .optional(),
  timestamp: z.iso
    .datetime({ offset: true })
    .refine((value) => !(new Date(value).getTime() > Date.now() + MAX_CLOCK_SKEW_MS), 'must not be in the future')
    .optional(),
  force: z.boolean().optional(),
  standalone: z.boolean().optional(),
  gitInfo: z.object({ provider: z.enum(['github', 'gitlab']).optional(), url: webUrl.optional() }).optional(),
});
export const importBody = operationBody;
export const exportBody = operationBody.extend({ commitMessage: z.string().min(1).max(65_536) });
