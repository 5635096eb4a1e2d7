import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';

/**
 * A smart-HTTP git server for tests: `git http-backend` run as a CGI program behind a
 * node http server on 127.0.0.1, serving the bare repositories under `projectRoot`
 * (clone and push), and answering 401 unless the request carries the expected basic-auth
 * credentials (without `username`, anyone may read and push). `hold` names repositories
 * whose requests are never answered (timeouts).
 */
export interface GitHttpServer {
  /** http://127.0.0.1:<port> — repositories are `${url}/<name>.git`. */
  url: string;
  /** Requests refused for wrong or missing credentials. */
  unauthorized(): number;
  /** Requests held open now (`hold`). */
  held(): number;
  /** Requests received so far. */
  requests(): number;
  close(): Promise<void>;
}

export async function startGitHttpServer(options: { projectRoot: string; username?: string; password?: string; hold?: RegExp }): Promise<GitHttpServer> {
  const expected = options.username === undefined ? undefined : `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}`;
  let refused = 0;
  let received = 0;
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    received += 1;
    if (expected !== undefined && req.headers.authorization !== expected) {
      refused += 1;
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (options.hold?.test(url.pathname)) {
      held.add(res);
      res.on('close', () => held.delete(res));
      return;
    }
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        HOME: os.tmpdir(),
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: os.devNull,
        GIT_PROJECT_ROOT: options.projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.replace(/^\?/, ''),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_ADDR: '127.0.0.1',
        // Authenticated: http-backend then also serves pushes (receive-pack).
        REMOTE_USER: options.username ?? 'anonymous',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(child.stdin);
    child.stdin.on('error', () => {});
    // CGI output: header lines, an empty line, then the body.
    let head = Buffer.alloc(0);
    let headersSent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n') >= 0 ? head.indexOf('\r\n\r\n') + 4 : head.indexOf('\n\n') >= 0 ? head.indexOf('\n\n') + 2 : -1;
      if (end < 0) return;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      headersSent = true;
      res.write(head.subarray(end));
    });
    child.on('close', () => {
      if (!headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    unauthorized: () => refused,
    held: () => held.size,
    requests: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of [...held]) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An http server on 127.0.0.1 answering every request with a 302 to the same path under `target`. */
export async function startRedirectServer(target: string): Promise<{ url: string; requests(): number; close(): Promise<void> }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    received += 1;
    res.writeHead(302, { location: `${target}${req.url ?? '/'}` }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
