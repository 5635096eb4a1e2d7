import { Client } from 'pg';

/* Small helpers around the `pg` client, shared by the launcher and the cluster it may run. */

/** The same server URL pointed at another database (query parameters such as sslmode kept). */
export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** host:port of a PostgreSQL URL, never its credentials. */
export function postgresWhere(serverUrl: string): string {
  const url = new URL(serverUrl);
  return `${url.hostname}:${url.port || '5432'}`;
}

/** Runs `action` with a connected client; the connection is always closed. */
export async function withPostgres<T>(url: string, action: (client: Client) => Promise<T>, timeoutMs = 5_000): Promise<T> {
  // Without a database in the URL, pg would connect to one named after the user.
  const connectionString = new URL(url).pathname.length > 1 ? url : withDatabase(url, 'postgres');
  const client = new Client({ connectionString, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {}); // a server going away mid-session fails the query; no stray event
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** True when a PostgreSQL server answers a query at `url`. */
export async function postgresAnswers(url: string, timeoutMs = 1_000): Promise<boolean> {
  try {
    return await withPostgres(url, async (client) => (await client.query('SELECT 1')).rowCount === 1, timeoutMs);
  } catch {
    return false;
  }
}
