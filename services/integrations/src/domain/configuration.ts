import type { ErrorObject, ValidateFunction } from 'ajv';
import { integrationJson, type IntegrationDoc } from '../db/models';
import { configurationValidator, isConfigurationSchema, type IntegrationConfigurations } from './configuration-schemas';

/*
 * An installation's configuration is checked against the JSON Schema the integration published
 * for its level (`configurations.account`, `.space` or `.site`), compiled by the same validator
 * publishing used (`configurationValidator`): its `properties` and `required`, with the schema's
 * defaults filled in. A configuration missing what the schema requires leaves the installation
 * `pending` (as GitBook does until it is configured); one that contradicts the schema is refused.
 */

export type ConfigurationLevel = 'account' | 'space' | 'site';

function validatorOf(integration: Pick<IntegrationDoc, 'configurations'>, level: ConfigurationLevel): ValidateFunction | undefined {
  const configuration = (integrationJson.configurations.read(integration.configurations) as IntegrationConfigurations)[level];
  // A ContentKit component draws its own form: the integration keeps what it wants.
  return isConfigurationSchema(configuration) ? configurationValidator(configuration) : undefined;
}

const fieldOf = (error: ErrorObject) => {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') path.push(String((error.params as { missingProperty?: string }).missingProperty));
  return ['configuration', ...path].join('.');
};

export interface ConfigurationCheck {
  /** The configuration with the schema's defaults filled in. */
  value: Record<string, unknown>;
  /** Everything the schema requires is there (and nothing contradicts it). */
  complete: boolean;
  /** What contradicts the schema (beyond missing required properties), as a 400 message. */
  invalid?: string;
}

/** Checks a configuration against the integration's schema for `level` (anything goes without one). */
export function checkConfiguration(
  integration: Pick<IntegrationDoc, 'configurations'>,
  level: ConfigurationLevel,
  configuration: Record<string, unknown>,
): ConfigurationCheck {
  const value = structuredClone(configuration);
  const validate = validatorOf(integration, level);
  if (!validate || validate(value)) return { value, complete: true };
  const errors = validate.errors ?? [];
  const contradiction = errors.find((error) => error.keyword !== 'required' || error.instancePath !== '');
  if (!contradiction) return { value, complete: false };
  return { value, complete: false, invalid: `Invalid body: ${fieldOf(contradiction)}: ${contradiction.message ?? 'invalid'}` };
}

/**
 * A configuration given by a caller: refused (the 400 message) when it contradicts the schema
 * or misses what it requires.
 */
export function requireValidConfiguration(
  integration: Pick<IntegrationDoc, 'configurations'>,
  level: ConfigurationLevel,
  configuration: Record<string, unknown>,
): { value: Record<string, unknown> } | { message: string } {
  const check = checkConfiguration(integration, level, configuration);
  if (check.invalid) return { message: check.invalid };
  if (!check.complete) {
    const validate = validatorOf(integration, level);
    const missing = validate?.errors?.find((error) => error.keyword === 'required');
    return { message: `Invalid body: ${missing ? fieldOf(missing) : 'configuration'}: ${missing?.message ?? 'incomplete'}` };
  }
  return { value: check.value };
}
