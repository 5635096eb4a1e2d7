import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from '@jest/globals';
import { freePort, startMongo, waitFor } from '@quire/datastore';
import { createHealthClient } from '@quire/runtime';
import { testBackendConfig, testEnvironment } from '@quire/testkit';
import { startBackendService } from './service';

describe('backend service readiness', () => {
  // Skipped when process.env.MONGODB_URI: needs a datastore of its own; MONGODB_URI points elsewhere
  (process.env.MONGODB_URI ? it.skip : it)('follows its database: not ready while it is down, ready again once it is back', async () => {
    const env = await testEnvironment();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-readiness-'));
    const port = await freePort();
    let mongo = await startMongo({ dataDir, port });
    const config = testBackendConfig({ ...env, mongodbUri: mongo.uri });
    const service = await startBackendService({ name: 'probe', config, models: () => {}, handleSignals: false });
    const health = createHealthClient({ address: `127.0.0.1:${service.grpcPort}`, secret: config.INTERNAL_HMAC_SECRET, caller: 'test' });
    const readyz = async () => (await fetch(`http://127.0.0.1:${service.httpPort}/readyz`)).status;
    const grpcStatus = async () => (await health.check({ service: '' }, { retry: false })).status;
    try {
      assert.equal(await readyz(), 200);
      assert.equal(await grpcStatus(), 1);

      await mongo.stop();
      await waitFor('readyz 503', async () => (await readyz()) === 503, 20_000);
      await waitFor('gRPC NOT_SERVING', async () => (await grpcStatus()) === 2, 20_000);
      const alive = await fetch(`http://127.0.0.1:${service.httpPort}/healthz`);
      assert.equal(alive.status, 200, 'liveness does not depend on the database');

      mongo = await startMongo({ dataDir, port });
      await waitFor('readyz 200 again', async () => (await readyz()) === 200, 30_000);
      await waitFor('gRPC SERVING again', async () => (await grpcStatus()) === 1, 30_000);
    } finally {
      await service.stop();
      await mongo.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
