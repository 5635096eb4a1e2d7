import assert from 'node:assert/strict';
import net from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { content, identity, publishing } from '@quire/proto';
import { createGrpcServer, createLogger, createServiceClients, grpcStatus, type BaseConfig, type ServiceClients } from '@quire/runtime';
import { HttpError, ServiceError } from './errors';
import { clientsOf, MalformedAnswerError } from './service-clients';

const SECRET = 'service-clients-test-secret-0000000000001';
const logger = createLogger('service-clients-test', 'silent');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A Space object as content's REST API presents it (what the contract's schema accepts). */
function spaceObject(id: string) {
  const at = new Date(0).toISOString();
  return {
    object: 'space',
    id,
    title: `Space ${id}`,
    emoji: '',
    visibility: 'private',
    createdAt: at,
    updatedAt: at,
    mergeRules: { type: 'inherit' },
    urls: { location: `http://127.0.0.1/v1/spaces/${id}`, app: `http://127.0.0.1/s/${id}` },
    organization: 'org-1',
    revision: 'rev-1',
    defaultLevel: null,
    defaultLevelInherited: true,
    comments: 0,
    changeRequests: 0,
    changeRequestsOpen: 0,
    changeRequestsDraft: 0,
  };
}

/** Every method of a service: only those a test names are ever called. */
const unused = (definition: { methods: object }) =>
  Object.fromEntries(Object.keys(definition.methods).map((name) => [name, async () => assert.fail(`${name} was called`)]));

describe('typed service clients', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  let connections: ServiceClients;
  /** The ids of each BatchGetSpaces that reached content, in arrival order. */
  const spaceCalls: string[][] = [];
  const countCalls: string[][] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  /** What BatchGetSpaces answers as rest_json for an id (a valid Space unless a test says otherwise). */
  const restJsonOf = new Map<string, string>();

  beforeAll(async () => {
    const port = await freePort();
    const server = createGrpcServer({ host: '127.0.0.1', port, secret: SECRET, logger });
    server.add(content.ContentServiceDefinition, {
      ...unused(content.ContentServiceDefinition),
      async batchGetSpaces(request: content.BatchGetSpacesRequest) {
        spaceCalls.push(request.ids);
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 30));
        inFlight--;
        return {
          spaces: request.ids.map((id) => ({
            ...content.Space.fromPartial({ id, organizationId: 'org-1', title: `Space ${id}` }),
            restJson: request.lean ? '' : (restJsonOf.get(id) ?? JSON.stringify(spaceObject(id))),
          })),
        };
      },
      async getSpaceContent() {
        // Domain code throws HttpError; the server answers its status (libs/runtime grpc.ts).
        throw new HttpError(404, 'Space not found');
      },
      async writeSpacePages() {
        throw new HttpError(409, 'The space changed concurrently; retry');
      },
    } as never);
    server.add(publishing.PublishingServiceDefinition, {
      ...unused(publishing.PublishingServiceDefinition),
      async batchCountSites(request: publishing.BatchCountSitesRequest) {
        countCalls.push(request.organizationIds);
        return { counts: request.organizationIds.map((id) => Number(id.slice(1))) };
      },
    } as never);
    server.add(identity.IdentityServiceDefinition, {
      ...unused(identity.IdentityServiceDefinition),
      async batchGetMembers(request: identity.BatchGetMembersRequest) {
        return { members: request.userIds.map((userId) => ({ organizationId: request.organizationId, userId, restJson: '[]' })) };
      },
    } as never);
    await server.listen();
    cleanups.push(() => server.shutdown());
    const address = `127.0.0.1:${port}`;
    const config = {
      CONTENT_GRPC_ADDR: address,
      PUBLISHING_GRPC_ADDR: address,
      IDENTITY_GRPC_ADDR: address,
      INTERNAL_HMAC_SECRET: SECRET,
      GRPC_DEADLINE_MS: 5_000,
    };
    connections = createServiceClients(config as BaseConfig, 'test');
  });

  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('split a batch over the maximum into calls of at most 1000, four at a time, and concatenate the answers in order', async () => {
    const ids = Array.from({ length: 4_500 }, (_, i) => `s${i}`);
    spaceCalls.length = 0;
    const { spaces } = await clientsOf({ clients: connections }).content.batchGetSpaces({ ids, viewerUserId: 'user-1' });
    assert.deepEqual(
      spaceCalls.map((call) => call.length).sort((a, b) => a - b),
      [500, 1000, 1000, 1000, 1000],
    );
    assert.ok(mostInFlight > 1 && mostInFlight <= 4, `${mostInFlight} calls at once`);
    assert.deepEqual(
      spaces.map((space) => space.id),
      ids,
      'in the order asked',
    );
    assert.deepEqual(spaces[4_499]!.rest, spaceObject('s4499'), 'rest_json parsed with the contract’s Space schema');
    assert.ok(!('restJson' in spaces[0]!));

    const { counts } = await clientsOf({ clients: connections }).publishing.batchCountSites({
      organizationIds: Array.from({ length: 2_001 }, (_, i) => `o${i}`),
    });
    assert.equal(countCalls.length, 3);
    assert.deepEqual(
      counts,
      Array.from({ length: 2_001 }, (_, i) => i),
      'counts concatenated in order',
    );
  });

  it('ask nothing for no ids, and answer no REST object where the service sent none', async () => {
    spaceCalls.length = 0;
    assert.deepEqual(await clientsOf({ clients: connections }).content.batchGetSpaces({ ids: [] }), { spaces: [] });
    assert.equal(spaceCalls.length, 0);
    const { spaces } = await clientsOf({ clients: connections }).content.batchGetSpaces({ ids: ['s1'], lean: true });
    assert.equal(spaces[0]!.rest, undefined);
  });

  it('refuse a rest_json that does not match the contract, naming the object and the field', async () => {
    restJsonOf.set('bad-title', JSON.stringify({ ...spaceObject('bad-title'), title: 'x'.repeat(51) }));
    restJsonOf.set('bad-json', '{"object":');
    const clients = clientsOf({ clients: connections });
    await assert.rejects(
      clients.content.batchGetSpaces({ ids: ['s1', 'bad-title'] }),
      (error: Error) => error instanceof MalformedAnswerError && /^Content answered a malformed Space: title: /.test(error.message),
    );
    await assert.rejects(clients.content.batchGetSpaces({ ids: ['bad-json'] }), {
      name: 'MalformedAnswerError',
      message: 'Content answered a malformed Space: not JSON',
    });
    await assert.rejects(clients.identity.batchGetMembers({ organizationId: 'org-1', userIds: ['u1'] }), (error: Error) =>
      /^Identity answered a malformed Member: body: /.test(error.message),
    );
  });

  it('fail with a ServiceError carrying the status the domain error of the other service was given', async () => {
    const clients = clientsOf({ clients: connections });
    await assert.rejects(clients.content.getSpaceContent({ spaceId: 'gone' }), (error: unknown) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.status, 503);
      assert.equal(error.message, 'Content service unavailable');
      assert.equal(error.code, grpcStatus.NOT_FOUND);
      assert.equal(error.details, 'Space not found');
      return true;
    });
    await assert.rejects(
      clients.content.writeSpacePages({ spaceId: 's1', expectedRevisionId: 'r0', pages: [], userId: 'u1' }),
      (error: ServiceError) => error.code === grpcStatus.ABORTED && error.details === 'The space changed concurrently; retry',
    );
    await assert.rejects(clientsOf({}).content.batchGetSpaces({ ids: ['s1'] }), { status: 503, message: 'Content service is not configured' });
  });
});
