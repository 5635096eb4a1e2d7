import { createServer, type Server } from 'node:http';
import { parseArgs } from 'node:util';
import { addMemberWithToken, bootstrapAdmin, revokeTokenBySecret, type withIdentityAdmin } from '@quire/identity';
import { ROLES, type Role } from '@quire/runtime';

/*
 * The operator commands (`npm run cli -- <command>`), parsed and run in one place: by the CLI
 * (a process per command, works with or without a stack) and by a running stack's supervisor
 * on its control socket (one connection for every command: what tests make accounts with).
 */

export const USAGE = `Usage:
  npm run cli -- bootstrap --email <email> --org <title> [--name <display name>] [--json]
  npm run cli -- add-member --org <organizationId> --email <email> --role <${ROLES.join('|')}|guest> [--json]
  npm run cli -- revoke-token --token <token> [--json]

Uses the same configuration as npm start (QUIRE_DATA_DIR, MONGODB_URI, REDIS_URL) and
works whether or not the stack is running.`;

/** A command line that does not parse: its message names the option, followed by the usage. */
export class UsageError extends Error {}

type IdentityAction<T> = Parameters<typeof withIdentityAdmin<T>>[1];
type IdentityContext = Parameters<IdentityAction<unknown>>[0];

export interface Command {
  json: boolean;
  /** What the command does with identity's database, and the result it prints. */
  run: IdentityAction<Record<string, unknown>>;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const usage = (message: string): never => {
  throw new UsageError(`${message}\n${USAGE}`);
};

/** Parses `args` (the command and its options) into what to run; throws UsageError. */
export function parseCommand(args: string[]): Command {
  const [command, ...rest] = args;
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        email: { type: 'string' },
        org: { type: 'string' },
        name: { type: 'string' },
        role: { type: 'string' },
        token: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    return usage((error as Error).message);
  }
  const json = values.json ?? false;
  switch (command) {
    case 'bootstrap': {
      const { email, org, name } = values;
      if (!email || !EMAIL.test(email)) usage('--email: a valid e-mail address is required');
      if (!org || org.trim().length < 2) usage('--org: an organization title of at least 2 characters is required');
      return { json, run: (ctx) => bootstrapAdmin(ctx, { email: email!, organizationTitle: org!.trim(), displayName: name }) };
    }
    case 'add-member': {
      const { org, email } = values;
      if (!org) usage('--org: an organization id is required');
      if (!email || !EMAIL.test(email)) usage('--email: a valid e-mail address is required');
      const role = values.role === 'guest' || values.role === 'null' ? null : (values.role as Role);
      if (role !== null && !ROLES.includes(role)) usage(`--role: must be one of ${ROLES.join(', ')}, guest`);
      return { json, run: (ctx) => addMemberWithToken(ctx, { organizationId: org!, email: email!, role }) };
    }
    case 'revoke-token': {
      const { token } = values;
      if (!token) usage('--token: the token to revoke is required');
      return { json, run: async (ctx) => ({ revoked: await revokeTokenBySecret(ctx, token!) }) };
    }
    default:
      return usage(command ? `unknown command ${command}` : 'a command is required');
  }
}

/**
 * Serves the commands on a Unix socket (`POST /` with `{"args": [...]}`, answered with the
 * result, or 400/500 with `{"error"}`), run in `identity` (openIdentityAdmin's context). The
 * socket lives in the stack's data directory (mode 700): whoever may read the admin token there
 * may run them.
 */
export function serveCommands(socketPath: string, identity: IdentityContext): Promise<Server> {
  const server = createServer((request, response) => {
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let command: Command;
      try {
        const { args } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { args?: unknown };
        if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) throw new UsageError('args: a list of strings is required');
        command = parseCommand(args);
      } catch (error) {
        return answer(400, { error: error instanceof UsageError ? error.message : 'the body must be JSON: {"args": [...]}' });
      }
      command.run(identity).then(
        (result) => answer(200, result),
        (error: unknown) => answer(500, { error: error instanceof Error ? error.message : String(error) }),
      );
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve(server));
  });
}
