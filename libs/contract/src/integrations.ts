import { z } from 'zod';
import { permissions, url } from './common';
import { organization } from './organizations';

/*
 * The object schemas below carry no component name: the publish request validates with the very
 * same schemas, and a named component must describe requests and answers identically.
 */

/** Every integration name (spec: pattern `^[a-zA-Z0-9-_.]+$`; GitBook: at most 100 characters). */
export const integrationName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-zA-Z0-9-_.]+$/, 'must be letters, digits, -, _ and . only');

/** GitBook's IntegrationVisibility: `private` integrations are seen by their owner's members only. */
export const integrationVisibility = z.enum(['public', 'private', 'unlisted']).meta({ id: 'IntegrationVisibility' });

/** GitBook's IntegrationTarget: where the integration may be installed. */
export const integrationTarget = z.enum(['all', 'site', 'space', 'organization']).meta({ id: 'IntegrationTarget' });

/** GitBook's IntegrationScope: what an installation's token may do. */
export const integrationScope = z
  .enum([
    'space:content:read',
    'space:content:write',
    'space:metadata:read',
    'space:metadata:write',
    'space:git:sync',
    'page:feedback:read',
    'site:metadata:read',
    'site:views:read',
    'site:script:inject',
    'site:script:cookies',
    'site:visitor:auth',
    'site:visitor:claims',
    'site:adaptive:read',
    'site:adaptive:write',
    'conversations:ingest',
    'openapi:read',
    'openapi:write',
  ])
  .meta({ id: 'IntegrationScope' });

/** GitBook's IntegrationCategory. */
export const integrationCategory = z.enum(['analytics', 'collaboration', 'content', 'marketing', 'visitor-auth', 'other']).meta({ id: 'IntegrationCategory' });

/** GitBook's IntegrationBlockMarkdown: the block written as a code block. */
const blockMarkdown = z.object({ codeblock: z.string().min(1).max(100), body: z.string().min(1).max(100) });

/** spec Integration `blocks` item (GitBook IntegrationBlock). */
export const integrationBlock = z.object({
  id: z.string().min(1).max(100),
  title: z.string().min(2).max(40),
  description: z.string().max(150).optional(),
  icon: z.string().max(2048).optional(),
  urlUnfurl: z.array(z.string().min(1).max(2048)).max(50).optional(),
  markdown: blockMarkdown.optional(),
});

/** GitBook's IntegrationConfigurationComponent: a configuration drawn by one of the integration's ContentKit components. */
export const integrationConfigurationComponent = z.object({ componentId: z.string().min(1).max(100) });

/** spec Integration `contentSources` item (GitBook IntegrationContentSource). */
export const integrationContentSource = z.object({
  id: z.string().min(1).max(100),
  title: z.string().min(2).max(40),
  description: z.string().max(150).optional(),
  icon: z.string().max(2048).optional(),
  configuration: integrationConfigurationComponent,
});

const propertyBase = { title: z.string().max(30).optional(), description: z.string().max(100).optional() };

/** One property of a configuration schema (GitBook IntegrationConfigurationSchema `properties` value). */
export const integrationConfigurationProperty = z.discriminatedUnion('type', [
  z.object({
    ...propertyBase,
    type: z.literal('string'),
    default: z.string().optional(),
    completion_url: z.string().max(2048).optional(),
    enum: z.array(z.string()).max(1000).optional(),
  }),
  z.object({ ...propertyBase, type: z.literal('number'), default: z.number().optional() }),
  z.object({ ...propertyBase, type: z.literal('boolean'), default: z.boolean().optional() }),
  z.object({ ...propertyBase, type: z.literal('button'), callback_url: z.string().max(2048), button_text: z.string().max(100) }),
]);

/** spec Integration `configurations.*` (GitBook IntegrationConfigurationSchema): a JSON Schema of an object. */
export const integrationConfigurationSchema = z.object({
  properties: z.record(z.string().min(1).max(100), integrationConfigurationProperty),
  required: z.array(z.string()).optional(),
});

/** GitBook's IntegrationConfiguration: a schema, or a ContentKit component. */
export const integrationConfiguration = z.union([integrationConfigurationSchema, integrationConfigurationComponent]);

/** spec Integration `configurations`: the account (organization), space and site configurations. */
export const integrationConfigurations = z.object({
  account: integrationConfiguration.optional(),
  space: integrationConfiguration.optional(),
  site: integrationConfiguration.optional(),
});

/** spec Integration `externalLinks` item. */
export const integrationExternalLink = z.object({ url: url.max(2048), label: z.string().min(1).max(100) });

/**
 * spec "Integration" (GitBook Integration), as the caller sees it. `owner` is the publishing
 * organization as the caller sees it; `permissions.admin` is whether they administer it. The
 * integration's `script` and `secrets` are never part of it. `urls.publicContentEndpoint` as
 * GitBook requires it (equal to publicEndpoint: Quire has no separate content origin).
 */
export const integration = z
  .object({
    object: z.literal('integration'),
    name: integrationName,
    version: z.number().int().min(1),
    title: z.string().min(2).max(30),
    description: z.string().max(100),
    summary: z.string().max(2048).optional(),
    previewImages: z.array(url).max(3),
    target: integrationTarget,
    verified: z.boolean(),
    visibility: integrationVisibility,
    scopes: z.array(integrationScope),
    categories: z.array(integrationCategory),
    blocks: z.array(integrationBlock),
    contentSources: z.array(integrationContentSource),
    configurations: integrationConfigurations,
    externalLinks: z.array(integrationExternalLink).max(5),
    owner: organization,
    urls: z.object({ location: url, icon: url.optional(), app: url, assets: url, publicEndpoint: url, publicContentEndpoint: url }),
    permissions: permissions('admin'),
    contentSecurityPolicy: z.string().optional(),
  })
  .meta({ id: 'Integration' });
