import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { checkAnswer } from '@quire/testkit';

/*
 * Test support for driving GitBook's own CLI (@gitbook/cli, pinned in scripts/gitbook-cli and
 * installed by scripts/install-gitbook-cli.sh) against a test stack: the CLI as a child process
 * with a config dir of its own, a proxy in front of the gateway that checks every answer the CLI
 * gets against Quire's API document, and a recorder for what the published integration reports.
 */

const REPO_ROOT = path.resolve(__dirname, '../../../..');

/** The CLI's entry point, where scripts/install-gitbook-cli.sh installs it. */
export const GITBOOK_CLI = path.join(REPO_ROOT, 'scripts/gitbook-cli/node_modules/@gitbook/cli/cli.js');

/** The CLI's entry point; throws saying how to install it when it is not there. */
export function gitbookCliPath(): string {
  if (!existsSync(GITBOOK_CLI)) throw new Error('GitBook CLI not installed: run `bash scripts/install-gitbook-cli.sh` (CI does, in .ci/run)');
  return GITBOOK_CLI;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

async function readBody(req: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A request the CLI made through the proxy. */
export interface CliCall {
  method: string;
  /** Path and query. */
  path: string;
  status: number;
  userAgent: string;
  authorization: string;
}

export interface CliProxy {
  /** What GITBOOK_ENDPOINT is set to: `http://127.0.0.1:<port>` (the CLI adds `/v1`). */
  url: string;
  calls: CliCall[];
  /** Answers that broke Quire's API document (the stack's own clients would have thrown). */
  violations: string[];
  close(): Promise<void>;
}

/**
 * A pass-through proxy to the gateway at `gatewayUrl` that records each call of the CLI and checks
 * its answer against the operation in Quire's API document, as the test stack's clients do.
 */
export async function startCliProxy(gatewayUrl: string): Promise<CliProxy> {
  const calls: CliCall[] = [];
  const violations: string[] = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name)) headers[name] = String(value);
    }
    try {
      const answer = await fetch(`${gatewayUrl}${target}`, { method, headers, body: body.length > 0 ? body : undefined, redirect: 'manual' });
      const text = await answer.text();
      const contentType = answer.headers.get('content-type') ?? '';
      calls.push({ method, path: target, status: answer.status, userAgent: headers['user-agent'] ?? '', authorization: headers.authorization ?? '' });
      await checkAnswer(gatewayUrl, method, target, answer.status, contentType, text && contentType.includes('json') ? JSON.parse(text) : text).catch(
        (error: Error) => violations.push(error.message),
      );
      const forwarded: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) forwarded[name] = value;
      });
      res.writeHead(answer.status, forwarded).end(text);
    } catch (error) {
      violations.push(`${method} ${target}: the proxy could not reach the gateway: ${(error as Error).message}`);
      res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
    }
  });
  const url = await listen(server);
  return { url, calls, violations, close: () => closeServer(server) };
}

/** A report the published integration POSTed: `path` is `/<what>`. */
export interface IntegrationReport {
  path: string;
  body: Record<string, any>;
}

export interface ReportRecorder {
  /** `http://127.0.0.1:<port>`, the integration's RECORDER_URL secret. */
  url: string;
  reports: IntegrationReport[];
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 recording the JSON bodies POSTed to it, answering 200. */
export async function startReportRecorder(): Promise<ReportRecorder> {
  const reports: IntegrationReport[] = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    try {
      reports.push({ path: req.url ?? '/', body: JSON.parse(body.toString('utf8')) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"recorded":true}');
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('not JSON');
    }
  });
  const url = await listen(server);
  return { url, reports, close: () => closeServer(server) };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliSession {
  /** Runs `gitbook <args>` to its end (killed after `timeoutMs`); `input` is written to its standard input. */
  run(args: string[], options?: { input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv }): Promise<CliRun>;
  /** Starts `gitbook <args>` and leaves it running (`tail`); its output so far is `output()`. */
  start(args: string[]): { child: ChildProcess; output(): string; exited: Promise<CliRun> };
  /** Removes the CLI's config and build dirs. */
  dispose(): void;
}

/**
 * The CLI as a publisher runs it in `cwd` (the integration's folder), authenticated by
 * GITBOOK_ENDPOINT/GITBOOK_TOKEN, with a HOME, config dir and temporary dir of its own (its
 * `conf` store and its esbuild output), and nothing else of this process's environment.
 */
export function cliSession(options: { cwd: string; endpoint: string; token: string; env?: NodeJS.ProcessEnv }): CliSession {
  const cli = gitbookCliPath();
  const home = mkdtempSync(path.join(os.tmpdir(), 'quire-gitbook-cli-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, 'config'),
    TMPDIR: home,
    NO_COLOR: '1',
    GITBOOK_ENDPOINT: options.endpoint,
    GITBOOK_TOKEN: options.token,
    ...options.env,
  };
  const spawnCli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
    spawn(process.execPath, ['--no-warnings', cli, ...args], { cwd: options.cwd, env: { ...env, ...extraEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
  const collect = (child: ChildProcess) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<CliRun>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
    return { output: () => stdout + stderr, exited };
  };
  return {
    async run(args, { input, timeoutMs = 60_000, env: extraEnv } = {}) {
      const child = spawnCli(args, extraEnv);
      const { exited } = collect(child);
      child.stdin!.end(input ?? '');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
    start(args) {
      const child = spawnCli(args);
      return { child, ...collect(child) };
    },
    dispose: () => rmSync(home, { recursive: true, force: true }),
  };
}
