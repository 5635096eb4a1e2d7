import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { sharedTestStack, type TestAccount, type TestStack, expectError as assertError, expectOk as ok } from '@quire/testkit';

const REFUSED = 'refused: the repository address does not resolve or is not allowed';

/**
 * Git sync with the production settings (https only, no private networks): the server's
 * own files and internal addresses are out of reach, and git info tells nothing about
 * them. Only 127.0.0.1 is ever listened on here, and nothing is ever connected to: every
 * refusal happens before git runs.
 */
describe('content: Git sync reaches only public repositories (end to end)', () => {
  let stack: TestStack;
  let editor: TestAccount;
  let reader: TestAccount;
  let orgId: string;
  let admin: TestAccount;
  /** A port on 127.0.0.1 that accepts connections (and counts them), and one that refuses them. */
  let listener: net.Server;
  let connections = 0;
  let openPort: number;
  let closedPort: number;

  const newSpace = async (title: string): Promise<string> => ok(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { title }), 201).id;
  /** Polls git info until the latest operation is no longer running (bounded by attempts, not time). */
  const settle = async (spaceId: string) => {
    for (let attempt = 0; attempt < 1_200; attempt += 1) {
      const state = ok(await reader.api.get(`/v1/spaces/${spaceId}/git/info`));
      if (state.operation?.state !== 'running') return state;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail('the git operation is still running');
  };
  const run = async (direction: 'import' | 'export', url: string) => {
    const spaceId = await newSpace(`${direction} ${url}`.slice(0, 50));
    ok(await editor.api.post(`/v1/spaces/${spaceId}/git/${direction}`, { url, ref: 'refs/heads/main', commitMessage: 'x' }), 204);
    return (await settle(spaceId)).operation;
  };

  beforeAll(async () => {
    // The defaults (GIT_ALLOWED_PROTOCOLS https, no private networks), as the worker's shared stack has them.
    stack = await sharedTestStack({ GIT_OPERATION_TIMEOUT_MS: '20000' });
    const organization = await stack.organization({ domain: 'egress.test', roles: ['edit', 'read'] });
    ({ admin } = organization);
    orgId = organization.id;
    ({ edit: editor, read: reader } = organization.members);
    listener = net.createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    openPort = (listener.address() as AddressInfo).port;
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });

  afterAll(async () => {
    if (process.env.QUIRE_TEST_SHOW_OUTPUT) console.log(stack?.output());
    await stack?.stop();
    await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
  });

  it('refuses file:// addresses at the request (400 naming url), for import and export', async () => {
    const spaceId = await newSpace('Local files');
    for (const url of ['file:///etc/passwd', 'file:///tmp/', 'file://localhost/srv/repo.git', 'FILE:///var/lib']) {
      for (const direction of ['import', 'export']) {
        const answer = await editor.api.post(`/v1/spaces/${spaceId}/git/${direction}`, { url, ref: 'refs/heads/main', commitMessage: 'x' });
        assertError(answer, 400, 'url');
        assert.match(answer.body.error.message, /the protocol "file" is not allowed/);
      }
    }
    assertError(await reader.api.get(`/v1/spaces/${spaceId}/git/info`), 404);
  });

  it('refuses loopback before connecting: an open and a closed port read the same in git info', async () => {
    const open = await run('import', `https://127.0.0.1:${openPort}/x.git`);
    const closed = await run('import', `https://127.0.0.1:${closedPort}/x.git`);
    assert.equal(connections, 0, 'nothing connected to the open port');
    for (const operation of [open, closed]) {
      assert.equal(operation.state, 'failure');
      assert.equal(operation.error, REFUSED);
    }
    const exported = await run('export', `https://bot:s3cret-token@127.0.0.1:${openPort}/x.git`);
    assert.equal(exported.error, REFUSED);
    assert.equal(connections, 0);
    assert.ok(!stack.output().includes('s3cret-token'), 'the credentials are not logged');
  });

  it('refuses every internal address form: names, IPv6, mapped and compatible IPv4, metadata, private ranges', async () => {
    const addresses = [
      'https://localhost/x.git',
      `https://localhost:${openPort}/x.git`,
      'https://[::1]/x.git',
      'https://[::ffff:127.0.0.1]/x.git',
      'https://[::7f00:1]/x.git',
      'https://2130706433/x.git',
      'https://0x7f.1/x.git',
      'https://0.0.0.0/x.git',
      'https://169.254.169.254/latest/meta-data.git',
      'https://[fd00:ec2::254]/x.git',
      'https://10.0.0.1/x.git',
      'https://192.168.1.1/x.git',
      'https://100.64.0.1/x.git',
      'https://[fd12:3456::1]/x.git',
    ];
    // Only ever tried once loopback is known to be refused before any connection.
    assert.equal((await run('import', `https://127.0.0.1:${openPort}/guard.git`)).error, REFUSED);
    assert.equal(connections, 0);
    const spaceId = await newSpace('Internal addresses');
    for (const url of addresses) {
      ok(await editor.api.post(`/v1/spaces/${spaceId}/git/import`, { url, ref: 'refs/heads/main' }), 204);
      const { operation } = await settle(spaceId);
      assert.deepEqual([url, operation.state, operation.error], [url, 'failure', REFUSED]);
    }
    assert.equal(connections, 0);
  });
});
