import Ajv, { type ValidateFunction } from 'ajv';
import type { z } from 'zod';
import type { integrationConfiguration, integrationConfigurations, integrationConfigurationSchema } from '@quire/contract';
import { httpError } from '@quire/http';

/*
 * An integration declares the configuration of its installations (account = organization,
 * space, site) in GitBook's shape: `{properties: {name: {type, title, description, default,
 * enum, completion_url…}}, required}`, or as a ContentKit component drawing its own form.
 * Publishing compiles each schema as a JSON Schema (ajv, strict) so a broken one is refused
 * then, not when someone installs; installing validates a configuration against the same
 * compiled schema (`configurationValidator`).
 */

export type IntegrationConfigurations = z.infer<typeof integrationConfigurations>;
export type IntegrationConfiguration = z.infer<typeof integrationConfiguration>;
export type ConfigurationSchema = z.infer<typeof integrationConfigurationSchema>;

// Defaults are filled into the configuration an installation is validated with.
const ajv = new Ajv({ strict: true, strictRequired: true, allErrors: false, useDefaults: true });
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 500;

/** Whether the configuration is a schema (and not a ContentKit component). */
export function isConfigurationSchema(configuration: IntegrationConfiguration | undefined): configuration is ConfigurationSchema {
  return !!configuration && 'properties' in configuration;
}

/**
 * The JSON Schema a GitBook configuration schema stands for: an object whose properties have
 * the JSON types given (a `button` holds no value, so it constrains nothing), others allowed
 * (integrations keep their own data in their configuration).
 */
export function configurationJsonSchema(schema: ConfigurationSchema): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const annotations = {
      ...(property.title !== undefined ? { title: property.title } : {}),
      ...(property.description !== undefined ? { description: property.description } : {}),
    };
    if (property.type === 'button') properties[name] = annotations;
    else if (property.type === 'string')
      properties[name] = {
        type: 'string',
        ...annotations,
        ...(property.default !== undefined ? { default: property.default } : {}),
        ...(property.enum ? { enum: property.enum } : {}),
      };
    else properties[name] = { type: property.type, ...annotations, ...(property.default !== undefined ? { default: property.default } : {}) };
  }
  return { type: 'object', properties, ...(schema.required ? { required: schema.required } : {}) };
}

/** The compiled validator of a configuration schema (kept per schema text); throws ajv's error for a bad schema. */
export function configurationValidator(schema: ConfigurationSchema): ValidateFunction {
  const json = configurationJsonSchema(schema);
  const key = JSON.stringify(json);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(json);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, validate);
  }
  return validate;
}

/**
 * 400 naming `configurations.<kind>` unless every schema given compiles, its `required`
 * names its own properties once each, and every `default` is among its `enum`.
 */
export function checkConfigurations(configurations: IntegrationConfigurations | undefined): void {
  for (const kind of ['account', 'space', 'site'] as const) {
    const configuration = configurations?.[kind];
    if (!isConfigurationSchema(configuration)) continue;
    const field = `configurations.${kind}`;
    const required = configuration.required ?? [];
    if (new Set(required).size !== required.length) throw httpError.badRequest(`Invalid body: ${field}.required: names a property twice`);
    for (const [name, property] of Object.entries(configuration.properties)) {
      if (property.type === 'string' && property.enum && property.default !== undefined && !property.enum.includes(property.default))
        throw httpError.badRequest(`Invalid body: ${field}.properties.${name}.default: must be one of its enum`);
    }
    try {
      configurationValidator(configuration);
    } catch (error) {
      throw httpError.badRequest(`Invalid body: ${field}: not a valid JSON Schema: ${(error as Error).message}`);
    }
  }
}
