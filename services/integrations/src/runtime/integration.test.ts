import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { build } from 'esbuild';
import { startRecorder, type Recorder } from './test/recorder';
import { compileScript, dispatchRequest, runScript, type IntegrationEnvironment, type IntegrationEvent } from '.';

/**
 * A real GitBook integration, written with @gitbook/runtime and bundled the way @gitbook/cli
 * 0.25 does (its buildScriptFromManifest), run for events the way the platform dispatches them.
 */
const INTEGRATION_SOURCE = `
import { createIntegration } from '@gitbook/runtime';

export default createIntegration({
  events: {
    installation_setup: async (event, context) => {
      console.log(\`installation_setup \${event.installationId} for \${context.environment.integration.name}\`);
      const response = await fetch(\`\${context.environment.secrets.RECORDER_URL}/hooks/installed\`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-secret': context.environment.secrets.HOOK_SECRET },
        body: JSON.stringify({ installationId: event.installationId, configuration: context.environment.installation?.configuration }),
      });
      console.info(\`recorder answered \${response.status}\`, await response.json());
    },
    space_content_updated: async (event, context) => {
      console.log(\`space \${event.spaceId} is now at revision \${event.revisionId}\`);
      // Through @gitbook/api's client: the environment's apiEndpoint and installation token.
      const { data: space } = await context.api.spaces.getSpaceById(event.spaceId);
      console.warn(\`space title: \${space.title}\`);
    },
    space_installation_setup: async () => {
      throw new Error('space installations are not supported');
    },
  },
});
`;

async function bundleLikeGitBookCli(source: string): Promise<string> {
  const result = await build({
    stdin: { contents: source, resolveDir: __dirname, sourcefile: 'index.ts', loader: 'ts' },
    bundle: true,
    write: false,
    platform: 'neutral',
    format: 'esm',
    target: 'es2020',
    minify: true,
    mainFields: ['worker', 'browser', 'module', 'jsnext', 'main'],
    conditions: ['worker', 'browser', 'import', 'production'],
    define: { 'process.env.NODE_ENV': '"production"', MODE: '"production"' },
    external: ['node:*', 'cloudflare:*'],
    jsx: 'automatic',
    jsxImportSource: '@gitbook/runtime',
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

const text = (body: Uint8Array | undefined) => Buffer.from(body ?? []).toString('utf8');

describe('a @gitbook/runtime integration in the sandbox', () => {
  let recorder: Recorder;
  let script: string;
  let environment: IntegrationEnvironment;

  beforeAll(async () => {
    recorder = await startRecorder();
    script = await bundleLikeGitBookCli(INTEGRATION_SOURCE);
    environment = {
      apiEndpoint: recorder.url,
      apiTokens: { integration: 'integration-token', installation: 'installation-token' },
      integration: { name: 'recorder-integration', version: 3 },
      installation: { id: 'inst_1', status: 'active', configuration: { channel: '#docs' } },
      secrets: { RECORDER_URL: recorder.url, HOOK_SECRET: 's3cret' },
      signingSecrets: { integration: 'signing-secret' },
    };
  });
  afterAll(() => recorder.close());

  const event = (fields: IntegrationEvent) => dispatchRequest({ event: fields, environment });

  it('compiles', async () => {
    assert.deepEqual(await compileScript(script), { ok: true });
  });

  it('runs installation_setup: the handler logged, fetched the recorder, and answered 200', async () => {
    const before = recorder.calls.length;
    const result = await runScript({
      script,
      request: await event({ eventId: 'evt_1', type: 'installation_setup', installationId: 'inst_1', status: 'active' }),
      hostFetch: recorder.hostFetch,
    });
    assert.equal(result.error, undefined);
    assert.equal(result.response?.status, 200);
    assert.equal(text(result.response?.body), 'OK');
    const messages = result.logs.map((log) => `${log.level} ${log.message}`);
    assert.ok(messages.includes('info [integrations] [evt_1] installation_setup'), messages.join('\n'));
    assert.ok(messages.includes('info installation_setup inst_1 for recorder-integration'), messages.join('\n'));
    assert.ok(messages.includes('info recorder answered 200 {"ok":true,"method":"POST","path":"/hooks/installed"}'), messages.join('\n'));
    for (const log of result.logs) assert.ok(!Number.isNaN(Date.parse(log.timestamp)));

    const calls = recorder.calls.slice(before);
    assert.equal(calls.length, 1);
    assert.equal(calls[0].method, 'POST');
    assert.equal(calls[0].path, '/hooks/installed');
    assert.equal(calls[0].headers['x-secret'], 's3cret');
    assert.deepEqual(JSON.parse(calls[0].body.toString()), { installationId: 'inst_1', configuration: { channel: '#docs' } });
  });

  it('runs space_content_updated, whose handler calls the GitBook API with the installation token', async () => {
    const before = recorder.calls.length;
    const result = await runScript({
      script,
      request: await event({
        eventId: 'evt_2',
        type: 'space_content_updated',
        installationId: 'inst_1',
        spaceId: 'space_1',
        revisionId: 'rev_9',
        updatedBy: [],
      }),
      hostFetch: recorder.hostFetch,
    });
    assert.equal(result.error, undefined);
    assert.equal(result.response?.status, 200);
    const messages = result.logs.map((log) => `${log.level} ${log.message}`);
    assert.ok(messages.includes('info space space_1 is now at revision rev_9'), messages.join('\n'));
    assert.ok(messages.includes('warn space title: Recorded space'), messages.join('\n'));
    const [call] = recorder.calls.slice(before);
    assert.equal(call.method, 'GET');
    assert.equal(call.path, '/v1/spaces/space_1');
    assert.equal(call.headers.authorization, 'Bearer installation-token');
    assert.equal(call.headers['user-agent'], 'integration-recorder-integration/3');
  });

  it('reports what the runtime answers for a failing handler (500) and an unknown event type (406)', async () => {
    const failing = await runScript({
      script,
      request: await event({ eventId: 'evt_3', type: 'space_installation_setup', installationId: 'inst_1', spaceId: 'space_1', status: 'active' }),
    });
    assert.equal(failing.error, undefined);
    assert.equal(failing.response?.status, 500);
    assert.deepEqual(JSON.parse(text(failing.response?.body)), { error: 'Internal server error' });
    assert.ok(failing.logs.some((log) => log.level === 'error' && log.message.includes('space installations are not supported')));

    const unknown = await runScript({ script, request: await event({ eventId: 'evt_4', type: 'site_view', siteId: 'site_1' }) });
    assert.equal(unknown.response?.status, 406);
    assert.deepEqual(JSON.parse(text(unknown.response?.body)), { error: 'Integration does not handle "site_view" events' });
  });
});
