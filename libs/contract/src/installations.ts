import { z } from 'zod';
import { timestamp, url } from './common';
import { integrationScope } from './integrations';
import { site } from './sites';
import { space } from './spaces';

/**
 * GitBook's IntegrationInstallationStatus: `pending` until the configuration its schema requires
 * is given, and while its integration asks for scopes its installer has not approved yet.
 */
export const installationStatus = z.enum(['active', 'pending', 'paused']).meta({ id: 'IntegrationInstallationStatus' });

/** GitBook's IntegrationInstallationSpaceSelection / SiteSelection. */
export const installationSelection = z.enum(['all', 'selected']);

/** External ids the integration assigns (GitBook: at most 5). */
export const installationExternalIds = z.array(z.string().min(1).max(256)).max(5);

/** A configuration: the free-form object the integration's configuration schema describes. */
export const installationConfiguration = z.record(z.string(), z.unknown());

/**
 * spec "Installation" (GitBook IntegrationInstallation): an integration installed on an
 * organization. `urls.publicContentEndpoint` as GitBook requires it (the same as publicEndpoint).
 */
export const integrationInstallation = z
  .object({
    id: z.string(),
    status: installationStatus,
    space_selection: installationSelection,
    site_selection: installationSelection,
    spaces: z.number().int().min(0),
    configuration: installationConfiguration,
    createdAt: timestamp,
    updatedAt: timestamp,
    urls: z.object({ location: url, app: url, publicEndpoint: url, publicContentEndpoint: url }),
    externalIds: installationExternalIds,
    target: z.object({ organization: z.string() }),
    scopes: z
      .array(integrationScope)
      .describe(
        "The scopes the installation's tokens act with: those its installer approved that the integration still asks for. The integration's other scopes await the approval of an admin of the installing organization (`PATCH` with `scopes`); the installation is `pending` meanwhile.",
      ),
  })
  .meta({ id: 'IntegrationInstallation' });

const contentInstallationBase = {
  integration: z.string(),
  installation: z.string(),
  status: installationStatus,
  configuration: installationConfiguration,
  externalIds: installationExternalIds,
  urls: z.object({ location: url, publicEndpoint: url, publicContentEndpoint: url }),
};

/** spec "Integration space entry" (GitBook IntegrationSpaceInstallation): `space` is its id, or the Space with `extended`. */
export const integrationSpaceInstallation = z
  .object({ ...contentInstallationBase, space: z.union([z.string(), space]) })
  .meta({ id: 'IntegrationSpaceInstallation' });

/** spec "Integration site entry" (GitBook IntegrationSiteInstallation): `site` is its id, or the Site with `extended`. */
export const integrationSiteInstallation = z
  .object({ ...contentInstallationBase, site: z.union([z.string(), site]) })
  .meta({ id: 'IntegrationSiteInstallation' });

/**
 * The event as delivered (GitBook's `Event` union): its common fields, then its type's own
 * (`spaceId`, `siteId`, `revisionId`, `status`, `previous`…).
 */
export const integrationEventPayload = z
  .looseObject({
    eventId: z.string(),
    type: z.string(),
    installationId: z.string().optional(),
    spaceId: z.string().optional(),
    siteId: z.string().optional(),
    revisionId: z.string().optional(),
    status: installationStatus.optional(),
    previous: z.object({ status: installationStatus.optional(), configuration: installationConfiguration.optional() }).optional(),
  })
  .meta({ id: 'Event' });

/**
 * spec "IntegrationEvent" (GitBook IntegrationEvent). `status` is absent while the event is
 * still being delivered (GitBook's enum has only the outcomes).
 */
export const integrationEvent = z
  .object({
    id: z.string(),
    integrationId: z.string(),
    installationId: z.string(),
    createdAt: timestamp,
    payload: integrationEventPayload,
    status: z.enum(['success', 'failed']),
  })
  .meta({ id: 'IntegrationEvent' });

/** GitBook IntegrationEventLog: one line of an event's trace. */
export const integrationEventLog = z
  .object({ message: z.string(), timestamp, level: z.enum(['debug', 'info', 'warn', 'error']) })
  .meta({ id: 'IntegrationEventLog' });

/** spec "Event detail": the event and its trace (the script's console lines, or the tunnel delivery's). */
export const integrationEventDetail = z.object({
  event: integrationEvent,
  trace: z.object({ logs: z.array(integrationEventLog) }).meta({ id: 'IntegrationEventTrace' }),
});
