import { z } from 'zod';
import { installationConfiguration, installationExternalIds, installationSelection, integrationScope } from '@quire/contract';
import { booleanQuery, httpUrlSchema, idSchema, listQuerySchema } from '@quire/http';
import { integrationParams } from './integration-schemas';

/** A configuration: a JSON object, at most 64 KiB once serialized. */
const MAX_CONFIGURATION_BYTES = 64 * 1024;
const configuration = installationConfiguration.refine(
  (value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_CONFIGURATION_BYTES,
  `must be at most ${MAX_CONFIGURATION_BYTES} bytes of JSON`,
);
const externalIds = installationExternalIds;
const selection = installationSelection;
const externalIdFilter = installationExternalIds.element.optional();

export const installationParams = integrationParams.extend({ installationId: idSchema });
export const spaceInstallationParams = installationParams.extend({ spaceId: idSchema });
export const siteInstallationParams = installationParams.extend({ siteId: idSchema });
export const eventParams = integrationParams.extend({ eventId: idSchema });

export const installBody = z.object({ organization: idSchema });

/** `scopes`: the integration's scopes its installer approves (installation-access.ts); not in GitBook's body. */
export const updateInstallationBody = z
  .object({
    configuration,
    externalIds,
    space_selection: selection,
    site_selection: selection,
    scopes: z.array(integrationScope).max(integrationScope.options.length),
  })
  .partial();

export const updateTargetInstallationBody = z.object({ configuration, externalIds }).partial();

/** GitBook names the body field `space` when installing on a space, `siteId` on a site. */
export const installOnSpaceBody = z.object({ space: idSchema });
export const installOnSiteBody = z.object({ siteId: idSchema });

export const extendedQuery = z.object({ extended: booleanQuery.default(false) });
export const listInstallationsQuery = listQuerySchema.extend({ externalId: externalIdFilter });
export const listInstallationTargetsQuery = listQuerySchema.extend(extendedQuery.shape);
export const listTargetsQuery = listInstallationTargetsQuery.extend({ externalId: externalIdFilter });

/** GitBook's setIntegrationDevelopmentMode body. */
export const devModeBody = z.object({
  tunnelUrl: httpUrlSchema.max(256),
  all: z.boolean().default(false),
});
