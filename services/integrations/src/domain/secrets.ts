import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { storedJson } from '@quire/runtime';
import type { IntegrationsConfig } from '../config';
import type { IntegrationDoc } from '../db/models';

/*
 * Secrets at rest: an integration's `secrets` map and its signing secret are stored sealed with
 * AES-256-GCM under a key derived (HKDF-SHA256) from INTEGRATIONS_SECRETS_KEY. Each sealed value
 * is bound to what it is (its "purpose": the integration's name and which secret) as additional
 * authenticated data, so a sealed value copied onto another integration or field does not open.
 * Sealed form: `v1.<iv>.<tag>.<ciphertext>` (base64url). Plain values are never logged.
 */

type KeyConfig = Pick<IntegrationsConfig, 'INTEGRATIONS_SECRETS_KEY'>;

const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const derivedKeys = new Map<string, Buffer>();

function keyOf(config: KeyConfig): Buffer {
  const master = config.INTEGRATIONS_SECRETS_KEY;
  let key = derivedKeys.get(master);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', master, 'quire integrations', 'secrets at rest: aes-256-gcm v1', 32));
    derivedKeys.set(master, key);
  }
  return key;
}

/** A secret could not be opened: another key, another purpose, or a tampered value. */
class SealedSecretError extends Error {
  constructor() {
    super('a stored secret could not be decrypted (wrong INTEGRATIONS_SECRETS_KEY, or the value was altered)');
    this.name = 'SealedSecretError';
  }
}

/** Seals `plaintext` for `purpose` (e.g. `integration/<name>/secrets`). */
export function encryptSecret(config: KeyConfig, plaintext: string, purpose: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(config), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [FORMAT, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/** Opens what {@link encryptSecret} sealed for the same purpose; throws SealedSecretError otherwise. */
export function decryptSecret(config: KeyConfig, sealed: string, purpose: string): string {
  const [format, iv, tag, ciphertext, extra] = sealed.split('.');
  if (format !== FORMAT || iv === undefined || tag === undefined || ciphertext === undefined || extra !== undefined) throw new SealedSecretError();
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(config), Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedSecretError();
  }
}

/** The `secrets` map as the JSON text that is sealed. */
const secretsJson = storedJson('Integration.secrets', z.record(z.string(), z.string()));

const secretsPurpose = (integrationName: string) => `integration/${integrationName}/secrets`;
const signingPurpose = (integrationName: string) => `integration/${integrationName}/signing-secret`;

/** The sealed form of an integration's `secrets` map (what IntegrationDoc.secrets holds). */
export function sealIntegrationSecrets(config: KeyConfig, integrationName: string, secrets: Record<string, string>): string {
  return encryptSecret(config, secretsJson.write(secrets), secretsPurpose(integrationName));
}

/** An integration's `secrets` map, in clear: for its script's environment only, never for an answer. */
export function integrationSecrets(config: KeyConfig, integration: Pick<IntegrationDoc, '_id' | 'secrets'>): Record<string, string> {
  return secretsJson.read(decryptSecret(config, integration.secrets, secretsPurpose(integration._id)));
}

/** A new signing secret (32 random bytes, base64url), sealed for the integration. */
export function newSealedSigningSecret(config: KeyConfig, integrationName: string): string {
  return encryptSecret(config, randomBytes(32).toString('base64url'), signingPurpose(integrationName));
}

/** The key every delivery of the integration is signed with (HMAC-SHA256), in clear. */
export function integrationSigningSecret(config: KeyConfig, integration: Pick<IntegrationDoc, '_id' | 'signingSecret'>): string {
  return decryptSecret(config, integration.signingSecret, signingPurpose(integration._id));
}
