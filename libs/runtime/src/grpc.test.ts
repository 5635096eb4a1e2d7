import assert from 'node:assert/strict';
import net from 'node:net';
import { afterAll, describe, it } from '@jest/globals';
import path from 'node:path';
import { loadSync } from '@grpc/proto-loader';
import { ClientError, createChannel, createClient, Status } from 'nice-grpc';
import { identity } from '@quire/proto';
import { createGrpcClient, createGrpcServer, createHealthClient, grpcTarget } from './grpc';
import { createLogger } from './logger';

const SECRET = 'grpc-test-secret-grpc-test-secret-000001';
const logger = createLogger('grpc-test', 'silent');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('gRPC clients', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('take one address, a list of replicas, or a resolver target, and refuse a list of names', () => {
    assert.equal(grpcTarget('127.0.0.1:5001'), '127.0.0.1:5001');
    assert.equal(grpcTarget('127.0.0.1:5001, 127.0.0.1:5003'), 'ipv4:127.0.0.1:5001,127.0.0.1:5003');
    assert.equal(grpcTarget('[::1]:5001,[::1]:5003'), 'ipv6:[::1]:5001,[::1]:5003');
    assert.equal(grpcTarget('dns:///quire-content-grpc.quire.svc.cluster.local:50051'), 'dns:///quire-content-grpc.quire.svc.cluster.local:50051');
    assert.throws(() => grpcTarget('content-0:5001,content-1:5001'), /'content-0:5001' in a list of gRPC addresses is not an ip:port/);
    assert.throws(() => grpcTarget(' , '), /empty/);
  });

  it('spread their calls over every replica of a list, and skip one that stopped', async () => {
    const answered = [0, 0];
    const servers = await Promise.all(
      [0, 1].map(async (i) => {
        const server = createGrpcServer({ host: '127.0.0.1', port: await freePort(), secret: SECRET, logger });
        const unused = Object.fromEntries(Object.keys(identity.IdentityServiceDefinition.methods).map((name) => [name, async () => assert.fail(name)]));
        server.add(identity.IdentityServiceDefinition, {
          ...unused,
          async batchGetUsers() {
            answered[i]++;
            return { users: [] };
          },
        } as never);
        return { server, port: await server.listen() };
      }),
    );
    cleanups.push(() => Promise.all(servers.map(({ server }) => server.shutdown())).then(() => undefined));
    const address = servers.map(({ port }) => `127.0.0.1:${port}`).join(',');
    const client = createGrpcClient(identity.IdentityServiceDefinition, { address, secret: SECRET, caller: 'test', deadlineMs: 3_000 });
    for (let i = 0; i < 10; i++) await client.batchGetUsers({ ids: ['u1'], organizationId: 'o1' });
    assert.ok(answered[0] >= 3 && answered[1] >= 3, `both replicas answered (${answered.join(' and ')})`);
    await servers[1].server.shutdown();
    const before = answered[0];
    for (let i = 0; i < 6; i++) await client.batchGetUsers({ ids: ['u1'], organizationId: 'o1' });
    assert.equal(answered[0] - before, 6, 'the remaining replica answered every call');
  });

  it('retry on UNAVAILABLE until a server that starts late answers', async () => {
    const port = await freePort();
    const client = createHealthClient({ address: `127.0.0.1:${port}`, secret: SECRET, caller: 'test' });
    const call = client.check({ service: '' }, { deadline: 3_000, retry: true, retryMaxAttempts: 10, retryBaseDelayMs: 50, retryMaxDelayMs: 200 });
    await new Promise((r) => setTimeout(r, 300));
    const server = createGrpcServer({ host: '127.0.0.1', port, secret: SECRET, logger });
    await server.listen();
    cleanups.push(() => server.shutdown());
    const response = await call;
    assert.equal(response.status, 1, 'SERVING');
  });

  it('give up at the deadline when the peer never answers', async () => {
    // A TCP server that accepts connections and never says a word.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      sockets.forEach((s) => s.destroy());
      silent.close();
    });
    const { port } = silent.address() as net.AddressInfo;
    const client = createHealthClient({ address: `127.0.0.1:${port}`, secret: SECRET, caller: 'test' });
    const started = Date.now();
    await assert.rejects(client.check({ service: '' }, { deadline: 300, retry: false }), (error: ClientError) => error.code === Status.DEADLINE_EXCEEDED);
    assert.ok(Date.now() - started < 3_000);
  });

  it('report the server unhealthy once it is shutting down', async () => {
    const port = await freePort();
    const server = createGrpcServer({ host: '127.0.0.1', port, secret: SECRET, logger });
    await server.listen();
    const client = createHealthClient({ address: `127.0.0.1:${port}`, secret: SECRET, caller: 'test' });
    assert.equal((await client.check({ service: '' })).status, 1);
    server.health.setStatus('unhealthy');
    assert.equal((await client.check({ service: '' })).status, 2, 'NOT_SERVING');
    await server.shutdown();
  });

  it('refuse a string holding a NUL with INVALID_ARGUMENT naming the field, before the method runs', async () => {
    const port = await freePort();
    const server = createGrpcServer({ host: '127.0.0.1', port, secret: SECRET, logger });
    const asked: string[][] = [];
    // Every method must have a handler: only one is ever called.
    const unused = Object.fromEntries(Object.keys(identity.IdentityServiceDefinition.methods).map((name) => [name, async () => assert.fail(name)]));
    server.add(identity.IdentityServiceDefinition, {
      ...unused,
      async batchGetUsers(request: { ids: string[] }) {
        asked.push(request.ids);
        return { users: [] };
      },
    } as never);
    await server.listen();
    cleanups.push(() => server.shutdown());
    const client = createGrpcClient(identity.IdentityServiceDefinition, { address: `127.0.0.1:${port}`, secret: SECRET, caller: 'test', deadlineMs: 3_000 });
    assert.deepEqual(await client.batchGetUsers({ ids: ['u1'], organizationId: 'o1' }), { users: [] });
    await assert.rejects(client.batchGetUsers({ ids: ['u1', 'u\u00002'], organizationId: 'o1' }), (error: ClientError) => {
      assert.equal(error.code, Status.INVALID_ARGUMENT);
      assert.equal(error.details, 'ids.1: must not contain NUL characters');
      return true;
    });
    await assert.rejects(client.batchGetUsers({ ids: [], organizationId: '\u0000' }), (error: ClientError) => error.code === Status.INVALID_ARGUMENT);
    assert.deepEqual(asked, [['u1']], 'the method ran only for the clean request');
  });

  it('answer a domain error thrown by a method with its status and message, anything else with a bare INTERNAL', async () => {
    const port = await freePort();
    const server = createGrpcServer({ host: '127.0.0.1', port, secret: SECRET, logger });
    // What libs/http's HttpError is to this library: an Error carrying an HTTP status.
    const domainError = (status: number, message: string) => Object.assign(new Error(message), { status });
    const thrown: Record<string, Error> = {
      'u-404': domainError(404, 'User not found'),
      'u-400': domainError(400, 'Invalid body: ids: too many'),
      'u-409': domainError(409, 'The space changed concurrently; retry'),
      'u-412': domainError(412, 'the installation was removed: its tokens are revoked'),
      'u-503': domainError(503, 'Content service unavailable'),
      'u-418': domainError(418, 'a status without a gRPC counterpart'),
      'u-bug': new TypeError("Cannot read properties of undefined (reading 'id')"),
    };
    const unused = Object.fromEntries(Object.keys(identity.IdentityServiceDefinition.methods).map((name) => [name, async () => assert.fail(name)]));
    server.add(identity.IdentityServiceDefinition, {
      ...unused,
      async batchGetUsers(request: { ids: string[] }) {
        throw thrown[request.ids[0]!];
      },
    } as never);
    await server.listen();
    cleanups.push(() => server.shutdown());
    const client = createGrpcClient(identity.IdentityServiceDefinition, { address: `127.0.0.1:${port}`, secret: SECRET, caller: 'test', deadlineMs: 3_000 });
    const answer = (id: string) =>
      client.batchGetUsers({ ids: [id] }, { retry: false }).then(
        () => assert.fail('answered'),
        (error: ClientError) => [Status[error.code], error.details],
      );
    assert.deepEqual(await answer('u-404'), ['NOT_FOUND', 'User not found']);
    assert.deepEqual(await answer('u-400'), ['INVALID_ARGUMENT', 'Invalid body: ids: too many']);
    assert.deepEqual(await answer('u-409'), ['ABORTED', 'The space changed concurrently; retry']);
    assert.deepEqual(await answer('u-412'), ['FAILED_PRECONDITION', 'the installation was removed: its tokens are revoked']);
    assert.deepEqual(await answer('u-503'), ['UNAVAILABLE', 'Content service unavailable']);
    assert.deepEqual(await answer('u-418'), ['INTERNAL', 'internal error'], 'a status outside the table is no expected failure');
    assert.deepEqual(await answer('u-bug'), ['INTERNAL', 'internal error'], 'nothing of an unexpected error leaks');
  });

  it('answer server reflection without a caller signature: every service of protos/ is listed and described', async () => {
    const port = await freePort();
    const server = createGrpcServer({ host: '127.0.0.1', port, secret: SECRET, logger });
    await server.listen();
    cleanups.push(() => server.shutdown());
    // A reflection client as grpcurl is one, from the reflection contract @grpc/reflection ships.
    const protoPath = path.join(path.dirname(require.resolve('@grpc/reflection/package.json')), 'build/proto/grpc/reflection/v1/reflection.proto');
    const definition = loadSync(protoPath, { keepCase: false, oneofs: true })['grpc.reflection.v1.ServerReflection'];
    const channel = createChannel(`127.0.0.1:${port}`);
    cleanups.push(() => channel.close());
    const client = createClient(definition as never, channel) as unknown as {
      ServerReflectionInfo(requests: AsyncIterable<unknown>): AsyncIterable<Record<string, any>>;
    };
    async function* ask() {
      yield { listServices: '' };
      yield { fileContainingSymbol: 'quire.content.v1.ContentService' };
    }
    const answers: Array<Record<string, any>> = [];
    for await (const answer of client.ServerReflectionInfo(ask())) answers.push(answer);
    assert.equal(answers.length, 2);
    const listed = answers[0].listServicesResponse.service.map((s: { name: string }) => s.name);
    for (const name of ['quire.identity.v1.IdentityService', 'quire.content.v1.ContentService', 'quire.publishing.v1.PublishingService']) {
      assert.ok(listed.includes(name), `${name} listed (got ${listed.join(', ')})`);
    }
    const files = answers[1].fileDescriptorResponse.fileDescriptorProto as Buffer[];
    assert.ok(files.length >= 1, 'the file defining ContentService is described');
    assert.ok(
      files.some((file) => Buffer.from(file).toString('latin1').includes('BatchGetSpaces')),
      'with its methods',
    );
  });
});
