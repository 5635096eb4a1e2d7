import { clientsOf, httpError } from '@quire/http';
import type { identity } from '@quire/proto';
import type { InstallationDoc, IntegrationDoc } from '../db/models';
import type { IntegrationsContext } from './context';

/*
 * What an installation's tokens may act with. The scopes: those an admin of the installing
 * organization approved (all of the integration's when installing it) that the integration still
 * asks for; a republish asking for more leaves them as they were, and the installation `pending`,
 * until an admin approves the new ones (PATCH with `scopes`). The spaces and sites: those its
 * selection covers (`all`, or those it is installed on). Identity holds both for the tokens
 * (token resolution, membership lookups); after every change they are given to it again, with a
 * version that only grows, so that an answer overtaken by a later change never undoes it.
 */

type Scoped = Pick<InstallationDoc, 'scopes'>;

/** The scopes the installer approved (an installation older than approvals: its integration's). */
export function approvedScopes(installation: Scoped, integration: Pick<IntegrationDoc, 'scopes'>): string[] {
  return installation.scopes ?? integration.scopes;
}

/** The scopes the installation's tokens act with: the integration's that its installer approved. */
export function scopesInForce(installation: Scoped, integration: Pick<IntegrationDoc, 'scopes'>): string[] {
  const approved = new Set(approvedScopes(installation, integration));
  return integration.scopes.filter((scope) => approved.has(scope));
}

/** The integration's scopes that await the installer's approval. */
export function scopesAwaitingApproval(installation: Scoped, integration: Pick<IntegrationDoc, 'scopes'>): string[] {
  const approved = new Set(approvedScopes(installation, integration));
  return integration.scopes.filter((scope) => !approved.has(scope));
}

/** GitBook's installation status: paused as set; pending while configuration or an approval is missing. */
export function installationStatus(installation: Pick<InstallationDoc, 'status' | 'scopes'>, integration: Pick<IntegrationDoc, 'scopes'>) {
  if (installation.status === 'active' && scopesAwaitingApproval(installation, integration).length > 0) return 'pending' as const;
  return installation.status;
}

/** What of an installation update changes what its tokens may act with: its installers' to decide, not its publisher's. */
const ACCESS_FIELDS = ['scopes', 'space_selection', 'site_selection'] as const;

/**
 * Whether the update changes what the installation's tokens may act with: then 403 unless the
 * caller administers the installing organization, 400 for a scope the integration does not ask for.
 */
export function checkAccessUpdate(
  integration: Pick<IntegrationDoc, 'scopes'>,
  installingAdmin: boolean,
  input: Partial<Record<(typeof ACCESS_FIELDS)[number], unknown>> & { scopes?: string[] },
): boolean {
  const fields = ACCESS_FIELDS.filter((field) => input[field] !== undefined);
  if (!fields.length) return false;
  if (!installingAdmin) throw httpError.forbidden(`Only admins of the installation's organization can change ${fields.join(', ')}`);
  const unknown = input.scopes?.find((scope) => !integration.scopes.includes(scope));
  if (unknown !== undefined) throw httpError.badRequest(`Invalid body: scopes: ${unknown} is not one of the integration's scopes`);
  return true;
}

/** What identity is given: the scopes in force and the spaces and sites covered, at the installation's version of them. */
async function accessOf(
  ctx: IntegrationsContext,
  integration: IntegrationDoc,
  installations: readonly InstallationDoc[],
): Promise<identity.InstallationAccess[]> {
  const selected = installations.filter((i) => i.spaceSelection === 'selected' || i.siteSelection === 'selected').map((i) => i._id);
  const targets = selected.length
    ? await ctx.models.TargetInstallation.find(
        { installationId: selected.length === 1 ? selected[0] : { $in: selected } },
        { installationId: 1, kind: 1, targetId: 1 },
      ).lean()
    : [];
  return installations.map((installation) => {
    const mine = targets.filter((target) => target.installationId === installation._id);
    const idsOf = (kind: 'space' | 'site') => mine.filter((target) => target.kind === kind).map((target) => target.targetId);
    return {
      installationId: installation._id,
      organizationId: installation.organizationId,
      integrationName: integration._id,
      integrationTitle: integration.title,
      scopes: scopesInForce(installation, integration),
      selection: {
        allSpaces: installation.spaceSelection === 'all',
        spaceIds: installation.spaceSelection === 'all' ? [] : idsOf('space'),
        allSites: installation.siteSelection === 'all',
        siteIds: installation.siteSelection === 'all' ? [] : idsOf('site'),
      },
      version: installation.accessVersion ?? 0,
    };
  });
}

/** The access to give identity with a token for the installation (as it stands: no new version). */
export async function currentAccess(
  ctx: IntegrationsContext,
  integration: IntegrationDoc,
  installation: InstallationDoc,
): Promise<identity.InstallationAccess> {
  return (await accessOf(ctx, integration, [installation]))[0]!;
}

/**
 * After a change of what these installations may act with (approval, selection, spaces or sites
 * installed on, the integration's scopes): a new version of their access, given to identity, in
 * force at once for their live tokens. The version is taken before the state is read, so the
 * state given is at least as new as the version says. Identity unavailable: a 503 (the change is
 * kept; the next change or token gives the access again).
 */
export async function accessChanged(ctx: IntegrationsContext, integration: IntegrationDoc, installationIds: readonly string[]): Promise<void> {
  if (!installationIds.length) return;
  const filter = { _id: installationIds.length === 1 ? installationIds[0] : { $in: installationIds }, integrationName: integration._id };
  await ctx.models.Installation.updateMany(filter, { $inc: { accessVersion: 1 } });
  const installations = await ctx.models.Installation.find(filter).lean<InstallationDoc[]>();
  if (!installations.length) return;
  await clientsOf(ctx).identity.updateInstallationAccess({ installations: await accessOf(ctx, integration, installations) });
}
