import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { HttpError } from '@quire/http';
import type { IntegrationsConfig } from '../config';
import { blockDomainsOf, canSee, contentSecurityPolicyText } from './catalogue';
import { checkConfigurations, configurationJsonSchema, configurationValidator } from './configuration-schemas';
import { sniffImage } from '@quire/http';
import { decodeIntegrationImage as decodeImage, integrationFileId } from './files';
import { decryptSecret, encryptSecret, integrationSecrets, newSealedSigningSecret, integrationSigningSecret, sealIntegrationSecrets } from './secrets';

const key = { INTEGRATIONS_SECRETS_KEY: 'k'.repeat(48) };
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const images = { config: { INTEGRATION_IMAGE_MAX_BYTES: 1024 } as IntegrationsConfig };

const badRequest = (action: () => unknown, field: string) =>
  assert.throws(action, (error: unknown) => error instanceof HttpError && error.status === 400 && error.message.includes(field));

describe('integrations catalogue rules', () => {
  it('seals secrets with AES-256-GCM, bound to their purpose and key', () => {
    const sealed = encryptSecret(key, 'hunter2', 'integration/a/secrets');
    assert.match(sealed, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.notEqual(encryptSecret(key, 'hunter2', 'integration/a/secrets'), sealed, 'a fresh IV each time');
    assert.equal(decryptSecret(key, sealed, 'integration/a/secrets'), 'hunter2');
    assert.throws(() => decryptSecret(key, sealed, 'integration/b/secrets'));
    assert.throws(() => decryptSecret({ INTEGRATIONS_SECRETS_KEY: 'x'.repeat(48) }, sealed, 'integration/a/secrets'));
    const [format, iv, tag, data] = sealed.split('.');
    const flipped = Buffer.from(data!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    assert.throws(() => decryptSecret(key, [format, iv, tag, flipped.toString('base64url')].join('.'), 'integration/a/secrets'));
    assert.throws(() => decryptSecret(key, 'not sealed', 'integration/a/secrets'));

    const integration = { _id: 'a', secrets: sealIntegrationSecrets(key, 'a', { TOKEN: 't' }), signingSecret: newSealedSigningSecret(key, 'a') };
    assert.deepEqual(integrationSecrets(key, integration), { TOKEN: 't' });
    assert.equal(Buffer.from(integrationSigningSecret(key, integration), 'base64url').length, 32);
    // A sealed value moved onto another integration does not open there.
    assert.throws(() => integrationSecrets(key, { ...integration, _id: 'b' }));
  });

  it('recognises PNG, JPEG, GIF and WebP by their first bytes, and nothing else', () => {
    assert.equal(sniffImage(PNG), 'image/png');
    assert.equal(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0])), 'image/jpeg');
    assert.equal(sniffImage(Buffer.from('GIF89a....')), 'image/gif');
    assert.equal(sniffImage(Buffer.from('RIFF\0\0\0\0WEBPVP8 ')), 'image/webp');
    assert.equal(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), undefined);
    assert.equal(sniffImage(Buffer.from('<?xml version="1.0"?><svg/>')), undefined);
    assert.equal(sniffImage(Buffer.alloc(0)), undefined);
  });

  it('decodes base64 images (also data: addresses and URL-safe base64) within the size limit, naming the field', () => {
    assert.deepEqual(decodeImage(images, 'icon', PNG.toString('base64')).data, PNG);
    assert.deepEqual(decodeImage(images, 'icon', `data:image/png;base64,${PNG.toString('base64')}`).data, PNG);
    assert.deepEqual(decodeImage(images, 'icon', PNG.toString('base64url')).data, PNG);
    badRequest(() => decodeImage(images, 'icon', '%%%'), 'icon: not base64');
    badRequest(() => decodeImage(images, 'previewImages.2', Buffer.from('<svg/>').toString('base64')), 'previewImages.2');
    badRequest(() => decodeImage(images, 'icon', Buffer.concat([PNG, Buffer.alloc(1024)]).toString('base64')), 'larger than 1024 bytes');
    assert.equal(integrationFileId('a', PNG), integrationFileId('a', PNG));
    assert.notEqual(integrationFileId('a', PNG), integrationFileId('b', PNG));
  });

  it('indexes block domains from urlUnfurl patterns and writes a CSP map as one header', () => {
    assert.deepEqual(
      blockDomainsOf([
        { id: 'a', title: 'A', urlUnfurl: ['https://www.Figma.com/file/*', '*.loom.com/share', 'http://host:8080/x', 'not a domain/'] },
        { id: 'b', title: 'B' },
      ]),
      ['www.figma.com', 'loom.com', 'host'],
    );
    assert.equal(contentSecurityPolicyText({ 'script-src': "'self'", 'img-src': '*' }), "script-src 'self'; img-src *");
    assert.equal(contentSecurityPolicyText("default-src 'none'"), "default-src 'none'");
    assert.equal(contentSecurityPolicyText(undefined), null);
  });

  it('shows private integrations to members holding a role only', () => {
    assert.equal(canSee({ visibility: 'private' }, null), false);
    assert.equal(canSee({ visibility: 'private' }, 'read'), true);
    assert.equal(canSee({ visibility: 'unlisted' }, null), true);
    assert.equal(canSee({ visibility: 'public' }, null), true);
  });

  it('compiles GitBook configuration schemas as JSON Schemas and refuses broken ones, naming them', () => {
    const schema = {
      properties: {
        channel: { type: 'string' as const, enum: ['a', 'b'], default: 'a', completion_url: '/complete' },
        count: { type: 'number' as const },
        connect: { type: 'button' as const, callback_url: '/cb', button_text: 'Go' },
      },
      required: ['channel'],
    };
    assert.deepEqual(configurationJsonSchema(schema), {
      type: 'object',
      properties: { channel: { type: 'string', default: 'a', enum: ['a', 'b'] }, count: { type: 'number' }, connect: {} },
      required: ['channel'],
    });
    const validate = configurationValidator(schema);
    assert.equal(validate({ channel: 'a', count: 2, extra: true }), true);
    assert.equal(validate({ channel: 'c' }), false);
    // A required property with a default is filled in, not missing.
    const filled: Record<string, unknown> = { count: 1 };
    assert.equal(validate(filled), true);
    assert.equal(filled.channel, 'a');
    assert.equal(configurationValidator({ properties: { token: { type: 'string' as const } }, required: ['token'] })({ count: 1 }), false);
    checkConfigurations({ account: schema, space: { componentId: 'form' } });
    badRequest(() => checkConfigurations({ site: { properties: {}, required: ['ghost'] } }), 'configurations.site');
    badRequest(() => checkConfigurations({ account: { properties: { a: { type: 'string' } }, required: ['a', 'a'] } }), 'configurations.account.required');
    badRequest(
      () => checkConfigurations({ space: { properties: { a: { type: 'string', enum: ['x'], default: 'y' } } } }),
      'configurations.space.properties.a.default',
    );
  });
});
