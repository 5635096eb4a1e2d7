import type { z } from 'zod';
import type { integrationBlock, integrationCategory, integrationContentSource, integrationExternalLink, integrationScope } from '@quire/contract';
import {
  containsText,
  findOrgAccess,
  httpError,
  isOrgAdmin,
  keysetPage,
  loadOrgAccess,
  orgRolesOf,
  requireOrgAdmin,
  type DecodedImage,
  type KeysetPage,
  type ListQuery,
  type OrgAccess,
} from '@quire/http';
import { withRedisLock, type Principal, type Role } from '@quire/runtime';
import { INTEGRATION_RUNTIMES, INTEGRATION_TARGETS, INTEGRATION_VISIBILITIES, integrationJson, type IntegrationDoc } from '../db/models';
import { compileScript } from '../runtime';
import { checkConfigurations, type IntegrationConfigurations } from './configuration-schemas';
import type { IntegrationsContext } from './context';
import { decodeIntegrationImage, removeUnusedFiles, storeImages } from './files';
import { accessChanged } from './installation-access';
import { revokeInstallationTokens } from './installation-tokens';
import { resolveOrganization } from './organizations';
import { newSealedSigningSecret, sealIntegrationSecrets } from './secrets';

/*
 * The catalogue: integrations published by organizations, listed and read by everyone who may
 * see them (`private` ones: their owner's members only), republished and unpublished by their
 * owner's admins. Every publish and unpublish of a name runs under that name's Redis lock, so
 * concurrent publishes of one name each count (version +1 each) and the files the current
 * version shows are never removed by an older publish finishing late.
 */

export type IntegrationVisibility = (typeof INTEGRATION_VISIBILITIES)[number];
export type IntegrationTarget = (typeof INTEGRATION_TARGETS)[number];

export interface PublishInput {
  organization: string;
  runtime?: (typeof INTEGRATION_RUNTIMES)[number];
  title: string;
  description: string;
  summary?: string;
  icon?: string;
  previewImages?: string[];
  visibility?: IntegrationVisibility;
  target?: IntegrationTarget;
  scopes: Array<z.infer<typeof integrationScope>>;
  categories?: Array<z.infer<typeof integrationCategory>>;
  blocks?: Array<z.infer<typeof integrationBlock>>;
  contentSources?: Array<z.infer<typeof integrationContentSource>>;
  externalLinks?: Array<z.infer<typeof integrationExternalLink>>;
  configurations?: IntegrationConfigurations;
  script: string;
  secrets?: Record<string, string>;
  contentSecurityPolicy?: string | Record<string, string>;
}

/** What the caller is to an integration's owner: their role there, if any. */
export interface IntegrationViewer {
  userId: string;
  /** The caller's role in the owner organization (null: not a member holding a role). */
  ownerRole: Role | null;
}

const LOCK = { ttlMs: 60_000, waitMs: 30_000, onBusy: () => httpError.conflict('The integration is busy with another publish; retry') };
const lockKey = (name: string) => `integrations:catalogue-lock:${name}`;

/** Whether the caller may see the integration at all: `private` ones are for their owner's members. */
export function canSee(integration: Pick<IntegrationDoc, 'visibility'>, ownerRole: Role | null): boolean {
  return integration.visibility !== 'private' || ownerRole !== null;
}

/** The integration as the caller may see it, with their standing in its owner; 404 when none or hidden. */
export async function loadIntegration(
  ctx: IntegrationsContext,
  caller: Principal,
  name: string,
): Promise<{ integration: IntegrationDoc; viewer: IntegrationViewer }> {
  const integration = await ctx.models.Integration.findById(name).lean();
  if (!integration) throw httpError.notFound('Integration');
  const access = await findOrgAccess(ctx, caller.userId, integration.ownerOrganizationId);
  const viewer = { userId: caller.userId, ownerRole: access?.role ?? null };
  if (!canSee(integration, viewer.ownerRole)) throw httpError.notFound('Integration');
  return { integration, viewer };
}

/**
 * 403 when the caller may see an integration of this name owned by another organization than
 * the one they publish for (the owner is not named), 404 when they may not even see it.
 */
async function refuseForeignName(ctx: IntegrationsContext, caller: Principal, existing: IntegrationDoc): Promise<never> {
  const ownerAccess = await findOrgAccess(ctx, caller.userId, existing.ownerOrganizationId);
  if (!canSee(existing, ownerAccess?.role ?? null)) throw httpError.notFound('Integration');
  throw httpError.forbidden(`The integration "${existing._id}" is published by another organization: only its admins can republish it`);
}

/** The host names of the blocks' `urlUnfurl` patterns (lower-cased, without a `*.` wildcard). */
export function blockDomainsOf(blocks: PublishInput['blocks']): string[] {
  const domains = new Set<string>();
  for (const pattern of (blocks ?? []).flatMap((block) => block.urlUnfurl ?? [])) {
    const host = pattern
      .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
      .split(/[/?#:]/)[0]!
      .replace(/^\*\./, '')
      .toLowerCase();
    if (/^[a-zA-Z0-9-_.]+$/.test(host)) domains.add(host);
  }
  return [...domains];
}

/** A content security policy as one header value: the string given, or `directive value; …`. */
export function contentSecurityPolicyText(policy: PublishInput['contentSecurityPolicy']): string | null {
  if (policy === undefined) return null;
  if (typeof policy === 'string') return policy;
  return Object.entries(policy)
    .map(([directive, value]) => `${directive} ${value}`.trim())
    .join('; ');
}

/** Everything of a publish that needs no database: limits, the script's compilation, the schemas, the images. */
async function checkPublish(ctx: IntegrationsContext, input: PublishInput): Promise<DecodedImage[]> {
  const scriptBytes = Buffer.byteLength(input.script, 'utf8');
  if (scriptBytes > ctx.config.INTEGRATION_SCRIPT_MAX_BYTES)
    throw httpError.badRequest(`Invalid body: script: larger than ${ctx.config.INTEGRATION_SCRIPT_MAX_BYTES} bytes (${scriptBytes})`);
  checkConfigurations(input.configurations);
  const images = [
    ...(input.icon !== undefined ? [decodeIntegrationImage(ctx, 'icon', input.icon)] : []),
    ...(input.previewImages ?? []).map((image, index) => decodeIntegrationImage(ctx, `previewImages.${index}`, image)),
  ];
  const compiled = await compileScript(input.script);
  if (!compiled.ok) throw httpError.badRequest(`Invalid body: script: does not compile: ${compiled.message}`);
  return images;
}

/**
 * Publishes (first time) or republishes the integration `name` for the organization the input
 * names (by id or hostname). Only its admins may; a name another organization owns is refused.
 */
export async function publishIntegration(
  ctx: IntegrationsContext,
  caller: Principal,
  name: string,
  input: PublishInput,
): Promise<{ integration: IntegrationDoc; access: OrgAccess }> {
  const organizationId = await resolveOrganization(ctx, input.organization);
  const access = await loadOrgAccess(ctx, caller.userId, organizationId);
  requireOrgAdmin(access, 'publish integrations');
  // Fail fast on a foreign name, before compiling anything; checked again under the lock.
  const before = await ctx.models.Integration.findById(name).lean();
  if (before && before.ownerOrganizationId !== organizationId) await refuseForeignName(ctx, caller, before);

  const images = await checkPublish(ctx, input);
  const blocks = input.blocks ?? [];
  const contentSources = input.contentSources ?? [];

  let previousScopes: string[] = [];
  const integration = await withRedisLock(
    ctx.redis,
    lockKey(name),
    async () => {
      const existing = await ctx.models.Integration.findById(name).lean();
      if (existing && existing.ownerOrganizationId !== organizationId) await refuseForeignName(ctx, caller, existing);
      previousScopes = existing?.scopes ?? [];
      // Installations from before approvals were kept were approved with the scopes asked until now.
      if (existing) await ctx.models.Installation.updateMany({ integrationName: name, scopes: { $exists: false } }, { $set: { scopes: existing.scopes } });
      const fileIds = await storeImages(ctx, name, images);
      const iconFileId = input.icon !== undefined ? fileIds[0]! : null;
      const previewImageFileIds = input.icon !== undefined ? fileIds.slice(1) : fileIds;
      const now = new Date();
      const set: Partial<IntegrationDoc> = {
        runtime: input.runtime ?? 'v1',
        title: input.title,
        description: input.description,
        summary: input.summary ?? null,
        target: input.target ?? 'all',
        scopes: [...new Set(input.scopes)],
        categories: [...new Set(input.categories ?? [])],
        blocks: integrationJson.blocks.write(blocks),
        blockDomains: blockDomainsOf(blocks),
        hasBlocks: blocks.length > 0,
        contentSources: integrationJson.contentSources.write(contentSources),
        hasContentSources: contentSources.length > 0,
        externalLinks: input.externalLinks ?? [],
        configurations: integrationJson.configurations.write(input.configurations ?? {}),
        contentSecurityPolicy: contentSecurityPolicyText(input.contentSecurityPolicy),
        script: input.script,
        iconFileId,
        previewImageFileIds,
        updatedAt: now,
      };
      // Left out of a republish, the visibility and the secrets stay what they were.
      if (input.visibility) set.visibility = input.visibility;
      if (input.secrets) set.secrets = sealIntegrationSecrets(ctx.config, name, input.secrets);
      const onInsert: Partial<IntegrationDoc> = {
        createdAt: now,
        signingSecret: newSealedSigningSecret(ctx.config, name),
        dev: null,
        ...(input.visibility ? {} : { visibility: 'private' as const }),
        ...(input.secrets ? {} : { secrets: sealIntegrationSecrets(ctx.config, name, {}) }),
      };
      const saved = await ctx.models.Integration.findOneAndUpdate(
        { _id: name, ownerOrganizationId: organizationId },
        { $set: set, $setOnInsert: onInsert, $inc: { version: 1 } },
        { upsert: true, returnDocument: 'after' },
      ).lean<IntegrationDoc>();
      await removeUnusedFiles(
        ctx,
        name,
        [saved!.iconFileId, ...saved!.previewImageFileIds].filter((id): id is string => !!id),
      );
      // A scope no longer asked for leaves every approval: asked for again, it is approved anew.
      const dropped = previousScopes.filter((scope) => !saved!.scopes.includes(scope));
      if (dropped.length) await ctx.models.Installation.updateMany({ integrationName: name }, { $pullAll: { scopes: dropped } });
      return saved!;
    },
    { ...LOCK, logger: ctx.logger },
  );
  ctx.logger.info({ integration: name, version: integration.version, organizationId }, 'integration published');
  // Scopes no longer asked for are out of every installation's tokens at once. New ones are not in
  // them: they await each installer's approval (installation-access.ts).
  if (previousScopes.some((scope) => !integration.scopes.includes(scope)))
    await accessChanged(ctx, integration, (await ctx.models.Installation.distinct('_id', { integrationName: name })) as string[]);
  return { integration, access };
}

/**
 * Unpublishes the integration and everything that hangs on it: its files, installations (on
 * the organization, its spaces and sites) and events. Nothing to do when there is none, or when
 * the caller may not see it (as if there were none); 403 for callers who see it but do not
 * administer its owner.
 */
export async function unpublishIntegration(ctx: IntegrationsContext, caller: Principal, name: string): Promise<void> {
  const integration = await ctx.models.Integration.findById(name).lean();
  if (!integration) return;
  const access = await findOrgAccess(ctx, caller.userId, integration.ownerOrganizationId);
  if (!canSee(integration, access?.role ?? null)) return;
  if (!isOrgAdmin(access)) throw httpError.forbidden('Only admins of the organization that published the integration can unpublish it');
  await withRedisLock(
    ctx.redis,
    lockKey(name),
    async () => {
      // Its installations' tokens before anything (identity down: a 503, and nothing is removed yet).
      await revokeInstallationTokens(ctx, (await ctx.models.Installation.distinct('_id', { integrationName: name })) as string[]);
      // The integration goes first: from then on nothing resolves it, then what hung on it.
      const removed = await ctx.models.Integration.deleteOne({ _id: name, ownerOrganizationId: integration.ownerOrganizationId });
      if (removed.deletedCount === 0) return;
      await Promise.all([
        ctx.models.IntegrationFile.deleteMany({ integrationName: name }),
        ctx.models.TargetInstallation.deleteMany({ integrationName: name }),
        ctx.models.Installation.deleteMany({ integrationName: name }),
        ctx.models.IntegrationEvent.deleteMany({ integrationName: name }),
      ]);
    },
    { ...LOCK, logger: ctx.logger },
  );
  ctx.logger.info({ integration: name }, 'integration unpublished');
}

export interface ListFilters {
  search?: string;
  category?: string;
  blockDomain?: string;
  blocks?: boolean;
  contentSources?: boolean;
  owner?: string;
  scope?: string;
  target?: IntegrationTarget;
}

/**
 * Organizations whose members see more than the public catalogue, and the caller's role in
 * each: the owners of non-public integrations the caller belongs to (one identity call).
 */
async function callerOwnerRoles(ctx: IntegrationsContext, userId: string, owner?: string): Promise<Map<string, Role>> {
  const owners = owner ? [owner] : ((await ctx.models.Integration.distinct('ownerOrganizationId', { visibility: { $ne: 'public' } })) as string[]);
  return orgRolesOf(ctx, userId, owners);
}

/**
 * One keyset page of the catalogue in name order, as the caller may see it: public
 * integrations, and the unlisted and private ones of the organizations they are a member of.
 * `target` lists what may be installed there (integrations for `all` targets too).
 */
export async function listIntegrations(
  ctx: IntegrationsContext,
  caller: Principal,
  filters: ListFilters,
  query: ListQuery,
): Promise<KeysetPage<IntegrationDoc> & { viewers: Map<string, IntegrationViewer> }> {
  const roles = await callerOwnerRoles(ctx, caller.userId, filters.owner);
  const memberOf = [...roles.keys()];
  const filter: Record<string, unknown> = {};
  const alternatives: Array<Record<string, unknown>[]> = [];
  if (filters.owner) {
    filter.ownerOrganizationId = filters.owner;
    if (!roles.has(filters.owner)) filter.visibility = 'public';
  } else if (memberOf.length === 0) filter.visibility = 'public';
  else alternatives.push([{ visibility: 'public' }, { ownerOrganizationId: { $in: memberOf } }]);
  if (filters.search) alternatives.push([{ _id: containsText(filters.search) }, { title: containsText(filters.search) }]);
  if (filters.category) filter.categories = filters.category;
  if (filters.scope) filter.scopes = filters.scope;
  if (filters.blockDomain) filter.blockDomains = filters.blockDomain.toLowerCase();
  if (filters.blocks !== undefined) filter.hasBlocks = filters.blocks;
  if (filters.contentSources !== undefined) filter.hasContentSources = filters.contentSources;
  if (filters.target) filter.target = filters.target === 'all' ? 'all' : { $in: [filters.target, 'all'] };
  if (alternatives.length === 1) filter.$or = alternatives[0];
  else if (alternatives.length > 1) filter.$and = alternatives.map(($or) => ({ $or }));

  const page = await keysetPage(ctx.models.Integration, { filter, sortField: '_id', order: 'asc', limit: query.limit, page: query.page });
  // The caller's standing in each owner on the page (mostly cached by now): what they see of it.
  const pageRoles = await orgRolesOf(
    ctx,
    caller.userId,
    page.items.map((integration) => integration.ownerOrganizationId),
  );
  const viewers = new Map(
    page.items.map((integration) => [integration._id, { userId: caller.userId, ownerRole: pageRoles.get(integration.ownerOrganizationId) ?? null }]),
  );
  return { ...page, viewers };
}
