import { z } from 'zod';
import {
  integrationBlock,
  integrationCategory,
  integrationConfigurations,
  integrationContentSource,
  integrationName,
  integrationScope,
  integrationTarget,
  integrationVisibility,
} from '@quire/contract';
import { booleanQuery, httpUrlSchema, idSchema, listQuerySchema } from '@quire/http';
import { INTEGRATION_RUNTIMES } from '../db/models';

/** Limits of GitBook's PublishIntegration where the spec gives none. */
const MAX_SECRETS = 20;

/** Where an integration's routes start. */
export const INTEGRATION_PATH = '/v1/integrations/:integrationName';
export const integrationParams = z.object({ integrationName });
export const integrationFileParams = integrationParams.extend({
  fileId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, 'not a file id'),
});

/** GitBook's listIntegrations filters. */
export const listIntegrationsQuery = listQuerySchema.extend({
  /** Part of the name or the title, any case. */
  search: z.string().max(512).optional(),
  category: integrationCategory.optional(),
  blockDomain: z
    .string()
    .max(100)
    .regex(/^[a-zA-Z0-9-_.]+$/, 'must be a domain name')
    .optional(),
  blocks: booleanQuery.optional(),
  contentSources: booleanQuery.optional(),
  /** The owning organization's id. */
  owner: idSchema.optional(),
  scope: integrationScope.optional(),
  target: integrationTarget.optional(),
});

/** Ids must be unique within their list (`blocks`, `contentSources`): the one it repeats is named. */
function uniqueIds<T extends { id: string }>(items: T[] | undefined, context: z.RefinementCtx, field: string): void {
  const seen = new Set<string>();
  (items ?? []).forEach((item, index) => {
    if (seen.has(item.id)) context.addIssue({ code: 'custom', path: [field, index, 'id'], message: `repeats the id ${JSON.stringify(item.id)}` });
    seen.add(item.id);
  });
}

/**
 * GitBook's PublishIntegration: the whole declaration of the integration. Fields left out take
 * their default (no icon, no blocks…), except `visibility` and `secrets`, which keep what the
 * previous version had (`private` and none at first).
 */
export const publishIntegrationBody = z
  .object({
    organization: z.string().min(1).max(100),
    runtime: z.enum(INTEGRATION_RUNTIMES).optional(),
    title: z.string().min(2).max(30),
    description: z.string().max(100),
    summary: z.string().max(2048).optional(),
    /** Base64; decoded, sniffed and size-checked by the domain (INTEGRATION_IMAGE_MAX_BYTES). */
    icon: z.string().min(1).optional(),
    previewImages: z.array(z.string().min(1)).max(3).optional(),
    visibility: integrationVisibility.optional(),
    target: integrationTarget.optional(),
    scopes: z.array(integrationScope).max(50),
    categories: z.array(integrationCategory).max(10).optional(),
    blocks: z.array(integrationBlock).max(50).optional(),
    contentSources: z.array(integrationContentSource).max(50).optional(),
    externalLinks: z
      .array(z.object({ url: httpUrlSchema, label: z.string().min(1).max(100) }))
      .max(5)
      .optional(),
    configurations: integrationConfigurations.optional(),
    /** The bundled script (a Workers-style module); its size is INTEGRATION_SCRIPT_MAX_BYTES at most. */
    script: z.string().min(1),
    secrets: z
      .record(z.string().min(1).max(100), z.string().max(10_000))
      .refine((secrets) => Object.keys(secrets).length <= MAX_SECRETS, `at most ${MAX_SECRETS} secrets`)
      .optional(),
    contentSecurityPolicy: z
      .union([
        z.string().max(10_000),
        z.record(
          z
            .string()
            .max(100)
            .regex(/^[a-z-]+$/, 'must be a directive name'),
          z.string().max(4096),
        ),
      ])
      .optional(),
  })
  .superRefine((body, context) => {
    uniqueIds(body.blocks, context, 'blocks');
    uniqueIds(body.contentSources, context, 'contentSources');
  });
