import { findOrgAccess, httpError, isOrgAdmin, keysetPage, orgRolesOf, requireOrgAdmin, type ListQuery, type OrgAccess } from '@quire/http';
import { isDuplicateKeyError, newId, roleAtLeast, type Principal } from '@quire/runtime';
import { installationConfigurationJson, type InstallationDoc, type IntegrationDoc, type TargetInstallationDoc } from '../db/models';
import { loadIntegration } from './catalogue';
import { checkConfiguration, requireValidConfiguration } from './configuration';
import type { IntegrationsContext } from './context';
import { newEventId, recordEvents, type EventPayload } from './events';
import { accessChanged, checkAccessUpdate, installationStatus } from './installation-access';
import { revokeInstallationTokens } from './installation-tokens';
import type { TargetObject } from './targets';

/*
 * Installations of an integration: one per organization (installing again answers the one
 * there is, also when two installs race: the unique index decides), and under it one per
 * space or site of that organization. Who may see one: admins of its organization, and admins
 * of the integration's owner (the integration's developers). Every setup, update and removal
 * is an event for the integration.
 */

/** The integration as the caller may see it, with the caller's standing in its owner organization. */
export interface IntegrationView {
  integration: IntegrationDoc;
  /** The caller's access to the owner organization (null when they hold no role there). */
  owner: OrgAccess | null;
}

export type TargetKind = TargetInstallationDoc['kind'];
const KIND_LABEL: Record<TargetKind, string> = { space: 'Space', site: 'Site' };

/** The integration by name (the catalogue's rules: 404 when none, or private to an organization the caller is not in). */
export async function loadIntegrationView(ctx: IntegrationsContext, caller: Principal, integrationName: string): Promise<IntegrationView> {
  const { integration, viewer } = await loadIntegration(ctx, caller, integrationName);
  const role = viewer.ownerRole;
  return { integration, owner: role ? { organizationId: integration.ownerOrganizationId, userId: caller.userId, role } : null };
}

/** The integration by name when the caller administers its owner organization (404 as loadIntegrationView, else 403). */
export async function loadOwnedIntegration(ctx: IntegrationsContext, caller: Principal, integrationName: string, action: string): Promise<IntegrationDoc> {
  const view = await loadIntegrationView(ctx, caller, integrationName);
  if (!isOrgAdmin(view.owner)) throw httpError.forbidden(`Only admins of the integration's organization can ${action}`);
  return view.integration;
}

/** Organizations among those the integration is installed in that the caller administers. */
async function administeredInstallOrganizations(ctx: IntegrationsContext, userId: string, integrationName: string): Promise<string[]> {
  const organizationIds = (await ctx.models.Installation.distinct('organizationId', { integrationName })) as string[];
  const roles = await orgRolesOf(ctx, userId, organizationIds);
  return [...roles].filter(([, role]) => roleAtLeast(role, 'admin')).map(([organizationId]) => organizationId);
}

/** The filter of what the caller sees of the integration's installations: all for its owner's admins, else their organizations'. */
async function visibleScope(ctx: IntegrationsContext, userId: string, view: IntegrationView): Promise<{ organizationId?: { $in: string[] } }> {
  if (isOrgAdmin(view.owner)) return {};
  return { organizationId: { $in: await administeredInstallOrganizations(ctx, userId, view.integration._id) } };
}

/** Space installations managed by each installation (GitBook Installation.spaces). */
export async function countSpaceInstallations(ctx: IntegrationsContext, installationIds: string[]): Promise<Map<string, number>> {
  const counts = new Map(installationIds.map((id) => [id, 0]));
  if (!installationIds.length) return counts;
  const grouped = await ctx.models.TargetInstallation.aggregate<{ _id: string; n: number }>([
    { $match: { installationId: { $in: installationIds }, kind: 'space' } },
    { $group: { _id: '$installationId', n: { $sum: 1 } } },
  ]);
  for (const group of grouped) counts.set(group._id, group.n);
  return counts;
}

function setupPayload(type: string, installationId: string, status: string, extra: Record<string, unknown> = {}): EventPayload {
  return { eventId: newEventId(), type, installationId, ...extra, status };
}

// Installations on an organization.

/**
 * Installs the integration in the organization the caller administers; the installation there
 * is, when there is one. `installation_setup` for a new one.
 */
export async function installIntegration(
  ctx: IntegrationsContext,
  view: IntegrationView,
  access: OrgAccess,
): Promise<{ installation: InstallationDoc; created: boolean }> {
  requireOrgAdmin(access, 'install integrations');
  const { integration } = view;
  const key = { integrationName: integration._id, organizationId: access.organizationId };
  const existing = await ctx.models.Installation.findOne(key).lean<InstallationDoc>();
  if (existing) return { installation: existing, created: false };
  const check = checkConfiguration(integration, 'account', {});
  const now = new Date();
  const installation: InstallationDoc = {
    _id: newId(),
    ...key,
    status: check.complete ? 'active' : 'pending',
    spaceSelection: 'selected',
    siteSelection: 'selected',
    configuration: installationConfigurationJson.write(check.value),
    externalIds: [],
    // Installing approves what the integration asks for now; more, later, needs another approval.
    scopes: [...integration.scopes],
    accessVersion: 0,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await ctx.models.Installation.create(installation);
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    const winner = await ctx.models.Installation.findOne(key).lean<InstallationDoc>();
    if (!winner) throw error;
    return { installation: winner, created: false };
  }
  await recordEvents(ctx, [
    {
      integrationName: integration._id,
      installationId: installation._id,
      organizationId: installation.organizationId,
      payload: setupPayload('installation_setup', installation._id, installationStatus(installation, integration)),
    },
  ]);
  return { installation, created: true };
}

export function findInstallation(ctx: IntegrationsContext, integrationName: string, installationId: string): Promise<InstallationDoc | null> {
  return ctx.models.Installation.findOne({ _id: installationId, integrationName }).lean<InstallationDoc>();
}

export async function loadInstallation(ctx: IntegrationsContext, integrationName: string, installationId: string): Promise<InstallationDoc> {
  const installation = await findInstallation(ctx, integrationName, installationId);
  if (!installation) throw httpError.notFound('Installation');
  return installation;
}

export interface InstallationStanding {
  /** The caller administers the installation's organization. */
  orgAdmin: boolean;
  /** The caller administers the integration's owner organization. */
  ownerAdmin: boolean;
}

/**
 * Who may see an installation: admins of its organization and of the integration's owner. A
 * member of its organization without the admin role gets 403; anyone else 404.
 */
export async function installationStanding(
  ctx: IntegrationsContext,
  userId: string,
  view: IntegrationView,
  organizationId: string,
): Promise<InstallationStanding> {
  const access = organizationId === view.integration.ownerOrganizationId ? view.owner : await findOrgAccess(ctx, userId, organizationId);
  const standing = { orgAdmin: isOrgAdmin(access), ownerAdmin: isOrgAdmin(view.owner) };
  if (!standing.orgAdmin && !standing.ownerAdmin) {
    if (access) throw httpError.forbidden('Only organization admins can manage integration installations');
    throw httpError.notFound('Installation');
  }
  return standing;
}

/** 403 unless the standing is an admin's of the installation's organization. */
export function requireInstallingAdmin(standing: Pick<InstallationStanding, 'orgAdmin'>, action: string): void {
  if (!standing.orgAdmin) throw httpError.forbidden(`Only admins of the installation's organization can ${action}`);
}

/**
 * Who may install on (or uninstall from) one target: admins of the installation's organization,
 * and for a space its own admins too — what `Space.permissions.installIntegration` (in `target`,
 * the space as the caller sees it) tells them. Anyone else gets installationStanding's 403 or 404.
 */
export async function requireTargetInstaller(
  ctx: IntegrationsContext,
  userId: string,
  view: IntegrationView,
  installation: InstallationDoc,
  kind: TargetKind,
  target: Pick<TargetObject, 'organizationId' | 'rest'> | undefined,
  action: string,
): Promise<void> {
  if (kind === 'space' && target?.organizationId === installation.organizationId && target.rest?.permissions?.installIntegration === true) return;
  requireInstallingAdmin(await installationStanding(ctx, userId, view, installation.organizationId), action);
}

export interface ListInstallationsQuery extends ListQuery {
  externalId?: string;
}

/** The integration's installations the caller may see (keyset on id). */
export async function listInstallations(ctx: IntegrationsContext, userId: string, view: IntegrationView, query: ListInstallationsQuery) {
  const filter = {
    integrationName: view.integration._id,
    ...(query.externalId !== undefined ? { externalIds: query.externalId } : {}),
    ...(await visibleScope(ctx, userId, view)),
  };
  return keysetPage(ctx.models.Installation, { filter, sortField: '_id', order: 'asc', limit: query.limit, page: query.page });
}

export interface UpdateInstallationInput {
  configuration?: Record<string, unknown>;
  externalIds?: string[];
  space_selection?: InstallationDoc['spaceSelection'];
  site_selection?: InstallationDoc['siteSelection'];
  /** The scopes the installer approves (some or all of the integration's). */
  scopes?: string[];
}

/**
 * Updates what is given (what its tokens may act with: by the installing organization's admins
 * only); `installation_setup` with the previous status and configuration. A change of what its
 * tokens may act with is in force at once.
 */
export async function updateInstallation(
  ctx: IntegrationsContext,
  integration: IntegrationDoc,
  installation: InstallationDoc,
  standing: InstallationStanding,
  input: UpdateInstallationInput,
): Promise<InstallationDoc> {
  const accessUpdate = checkAccessUpdate(integration, standing.orgAdmin, input);
  const set: Partial<InstallationDoc> = { updatedAt: new Date() };
  if (input.configuration !== undefined) {
    const checked = requireValidConfiguration(integration, 'account', input.configuration);
    if ('message' in checked) throw httpError.badRequest(checked.message);
    set.configuration = installationConfigurationJson.write(checked.value);
    if (installation.status === 'pending') set.status = 'active';
  }
  if (input.externalIds !== undefined) set.externalIds = [...new Set(input.externalIds)];
  if (input.space_selection !== undefined) set.spaceSelection = input.space_selection;
  if (input.site_selection !== undefined) set.siteSelection = input.site_selection;
  if (input.scopes !== undefined) set.scopes = integration.scopes.filter((scope) => input.scopes!.includes(scope));
  const updated = await ctx.models.Installation.findOneAndUpdate({ _id: installation._id }, { $set: set }, { returnDocument: 'after' }).lean<InstallationDoc>();
  if (!updated) throw httpError.notFound('Installation');
  if (accessUpdate) await accessChanged(ctx, integration, [updated._id]);
  await recordEvents(ctx, [
    {
      integrationName: integration._id,
      installationId: updated._id,
      organizationId: updated.organizationId,
      payload: setupPayload('installation_setup', updated._id, installationStatus(updated, integration), {
        previous: { status: installationStatus(installation, integration), configuration: installationConfigurationJson.read(installation.configuration) },
      }),
    },
  ]);
  return updated;
}

/** Uninstalls (with its space and site installations); `installation_deleted`. False when it was not there. */
export async function uninstallIntegration(ctx: IntegrationsContext, integration: IntegrationDoc, installationId: string): Promise<boolean> {
  // Its tokens first (identity down: a 503, and nothing is removed yet).
  await revokeInstallationTokens(ctx, [installationId]);
  const installation = await ctx.models.Installation.findOneAndDelete({ _id: installationId, integrationName: integration._id }).lean<InstallationDoc>();
  if (!installation) return false;
  await ctx.models.TargetInstallation.deleteMany({ installationId });
  await recordEvents(ctx, [
    {
      integrationName: integration._id,
      installationId,
      organizationId: installation.organizationId,
      payload: {
        eventId: newEventId(),
        type: 'installation_deleted',
        installationId,
        previous: { configuration: installationConfigurationJson.read(installation.configuration) },
      },
    },
  ]);
  return true;
}

// Installations on a space or a site of the installation's organization.

const targetField = (kind: TargetKind) => (kind === 'space' ? 'spaceId' : 'siteId');

/** 400 unless the integration may be installed on that kind of target (its `target`). */
export function requireInstallableOn(integration: IntegrationDoc, kind: TargetKind, field: string): void {
  if (integration.target !== 'all' && integration.target !== kind)
    throw httpError.badRequest(`Invalid body: ${field}: the integration cannot be installed on a ${kind} (its target is ${integration.target})`);
}

/**
 * Installs on a space or site of the installation's organization (`organizationId` is where
 * the target actually is, as its service says; another organization's is a 404); the one there
 * is, when there is one. `space_installation_setup` / `site_installation_setup` for a new one.
 */
export async function installOnTarget(
  ctx: IntegrationsContext,
  integration: IntegrationDoc,
  installation: InstallationDoc,
  target: { kind: TargetKind; id: string; organizationId: string | undefined },
): Promise<{ target: TargetInstallationDoc; created: boolean }> {
  if (target.organizationId !== installation.organizationId) throw httpError.notFound(KIND_LABEL[target.kind]);
  const key = { installationId: installation._id, kind: target.kind, targetId: target.id };
  const existing = await ctx.models.TargetInstallation.findOne(key).lean<TargetInstallationDoc>();
  // Given to identity again also when it was there: a retry after identity was unavailable.
  if (existing) {
    await accessChanged(ctx, integration, [installation._id]);
    return { target: existing, created: false };
  }
  const check = checkConfiguration(integration, target.kind, {});
  const now = new Date();
  const doc: TargetInstallationDoc = {
    _id: newId(),
    ...key,
    integrationName: integration._id,
    organizationId: installation.organizationId,
    status: check.complete ? 'active' : 'pending',
    configuration: installationConfigurationJson.write(check.value),
    externalIds: [],
    createdAt: now,
    updatedAt: now,
  };
  try {
    await ctx.models.TargetInstallation.create(doc);
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    const winner = await ctx.models.TargetInstallation.findOne(key).lean<TargetInstallationDoc>();
    if (!winner) throw error;
    return { target: winner, created: false };
  }
  // A selected space or site: the installation's tokens reach it from now on.
  await accessChanged(ctx, integration, [installation._id]);
  await recordEvents(ctx, [
    {
      integrationName: integration._id,
      installationId: installation._id,
      organizationId: installation.organizationId,
      payload: setupPayload(`${target.kind}_installation_setup`, installation._id, doc.status, { [targetField(target.kind)]: target.id }),
    },
  ]);
  return { target: doc, created: true };
}

export async function loadTargetInstallation(
  ctx: IntegrationsContext,
  installation: InstallationDoc,
  kind: TargetKind,
  targetId: string,
): Promise<TargetInstallationDoc> {
  const target = await ctx.models.TargetInstallation.findOne({ installationId: installation._id, kind, targetId }).lean<TargetInstallationDoc>();
  if (!target) throw httpError.notFound(`${KIND_LABEL[kind]} installation`);
  return target;
}

/** Updates what is given; `space_installation_setup` / `site_installation_setup` with the previous state. */
export async function updateTargetInstallation(
  ctx: IntegrationsContext,
  integration: IntegrationDoc,
  target: TargetInstallationDoc,
  input: { configuration?: Record<string, unknown>; externalIds?: string[] },
): Promise<TargetInstallationDoc> {
  const set: Partial<TargetInstallationDoc> = { updatedAt: new Date() };
  if (input.configuration !== undefined) {
    const checked = requireValidConfiguration(integration, target.kind, input.configuration);
    if ('message' in checked) throw httpError.badRequest(checked.message);
    set.configuration = installationConfigurationJson.write(checked.value);
    if (target.status === 'pending') set.status = 'active';
  }
  if (input.externalIds !== undefined) set.externalIds = [...new Set(input.externalIds)];
  const updated = await ctx.models.TargetInstallation.findOneAndUpdate(
    { _id: target._id },
    { $set: set },
    { returnDocument: 'after' },
  ).lean<TargetInstallationDoc>();
  if (!updated) throw httpError.notFound(`${KIND_LABEL[target.kind]} installation`);
  await recordEvents(ctx, [
    {
      integrationName: integration._id,
      installationId: updated.installationId,
      organizationId: updated.organizationId,
      payload: setupPayload(`${updated.kind}_installation_setup`, updated.installationId, updated.status, {
        [targetField(updated.kind)]: updated.targetId,
        previous: { status: target.status, configuration: installationConfigurationJson.read(target.configuration) },
      }),
    },
  ]);
  return updated;
}

/**
 * Uninstalls from a space or site (the installation's tokens no longer reach it, when it was
 * selected); `space_installation_deleted` / `site_installation_deleted`. False when it was not there.
 */
export async function uninstallFromTarget(
  ctx: IntegrationsContext,
  integration: IntegrationDoc,
  installation: InstallationDoc,
  kind: TargetKind,
  targetId: string,
): Promise<boolean> {
  const removed = await ctx.models.TargetInstallation.findOneAndDelete({ installationId: installation._id, kind, targetId }).lean<TargetInstallationDoc>();
  // Given to identity also when it was not there: a retry after identity was unavailable.
  await accessChanged(ctx, integration, [installation._id]);
  if (!removed) return false;
  await recordEvents(ctx, [
    {
      integrationName: installation.integrationName,
      installationId: installation._id,
      organizationId: installation.organizationId,
      payload: {
        eventId: newEventId(),
        type: `${kind}_installation_deleted`,
        installationId: installation._id,
        [targetField(kind)]: targetId,
        previous: { configuration: installationConfigurationJson.read(removed.configuration) },
      },
    },
  ]);
  return true;
}

export interface ListTargetsQuery extends ListQuery {
  externalId?: string;
}

/** Space or site installations of one installation (keyset on id). */
export function listInstallationTargets(ctx: IntegrationsContext, installation: InstallationDoc, kind: TargetKind, query: ListTargetsQuery) {
  const filter = { installationId: installation._id, kind, ...(query.externalId !== undefined ? { externalIds: query.externalId } : {}) };
  return keysetPage(ctx.models.TargetInstallation, { filter, sortField: '_id', order: 'asc', limit: query.limit, page: query.page });
}

/** Space or site installations of the integration the caller may see: all for its owner's admins, else their organizations'. */
export async function listIntegrationTargets(ctx: IntegrationsContext, userId: string, view: IntegrationView, kind: TargetKind, query: ListTargetsQuery) {
  const filter = {
    integrationName: view.integration._id,
    kind,
    ...(query.externalId !== undefined ? { externalIds: query.externalId } : {}),
    ...(await visibleScope(ctx, userId, view)),
  };
  return keysetPage(ctx.models.TargetInstallation, { filter, sortField: '_id', order: 'asc', limit: query.limit, page: query.page });
}
