import { execFileSync } from 'node:child_process';
import os from 'node:os';

/**
 * Real git for tests and benches, with nothing of the machine's configuration (no system or
 * global config, hooks or templates; HOME is `home`) and a fixed author. `run(cwd, ...args)`
 * answers git's output, trimmed; `bytes` the raw output.
 */
export function isolatedGit(home: string | (() => string), author = { name: 'Writer', email: 'writer@example.test' }) {
  const env = () => ({
    PATH: process.env.PATH,
    HOME: typeof home === 'function' ? home() : home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: os.devNull,
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
  });
  return {
    run: (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: env(), encoding: 'utf8', stdio: 'pipe', timeout: 60_000 }).trim(),
    bytes: (cwd: string, ...args: string[]): Buffer => execFileSync('git', args, { cwd, env: env(), stdio: 'pipe', timeout: 60_000 }),
  };
}
