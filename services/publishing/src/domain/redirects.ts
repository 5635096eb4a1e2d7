import { clientsOf, containsText, HttpError, httpError, keysetPage, type ListQuery } from '@quire/http';
import { isDuplicateKeyError, newId } from '@quire/runtime';
import type { SiteDoc, SiteRedirectDestination, SiteRedirectDoc } from '../db/models';
import type { PublishingContext } from './context';
import { sourceKey, variantPlacements } from './site-addresses';
import { defaultSectionOf, loadStructure } from './structure';
import { siteAddress } from './urls';

/*
 * The redirects an admin sets on a site (GitBook's site redirects): from a source path below
 * the site's root — one address, or every address under a prefix (a trailing `*`) — to a section,
 * a variant, a page of the site, or another site. Live ones answer addresses where no page is
 * (published/redirects.ts); drafts wait to be published. Writes run under the site's lock
 * (http/requests): checks such as "no other redirect from this source" hold until the write.
 */

/** A destination as a request gives it: a page may be named by its path in its space (stored as the page). */
export type DestinationInput = SiteRedirectDestination | { kind: 'path'; spaceId: string; path: string };

interface SpacePage {
  id: string;
  path: string;
}

/** The pages of a space's current revision with their paths ("guides/install"), parents before children. */
async function spacePages(ctx: PublishingContext, spaceId: string): Promise<SpacePage[]> {
  const content = await clientsOf(ctx).content.getSpaceContent({ spaceId, revisionId: '', evaluated: false });
  const paths = new Map<string, string>();
  return content.pages.map((page) => {
    const parent = page.parentId ? paths.get(page.parentId) : undefined;
    const path = parent !== undefined ? `${parent}/${page.slug}` : page.slug;
    paths.set(page.id, path);
    return { id: page.id, path };
  });
}

/** The destination as stored, once checked against the site (a 400 naming `field` for what is not in it). */
export async function checkedDestination(
  ctx: PublishingContext,
  site: SiteDoc,
  input: DestinationInput,
  field = 'destination',
): Promise<SiteRedirectDestination> {
  const invalid = (what: string, message: string) => httpError.badRequest(`Invalid body: ${field}.${what}: ${message}`);
  switch (input.kind) {
    case 'external':
      return { kind: 'external', url: input.url };
    case 'site-section': {
      if (!(await ctx.models.SiteSection.exists({ _id: input.siteSectionId, siteId: site._id }))) throw invalid('siteSectionId', 'not a section of this site');
      return { kind: 'site-section', siteSectionId: input.siteSectionId };
    }
    case 'site-space': {
      if (!(await ctx.models.SiteSpace.exists({ _id: input.siteSpaceId, siteId: site._id }))) throw invalid('siteSpaceId', 'not a site space of this site');
      return { kind: 'site-space', siteSpaceId: input.siteSpaceId };
    }
    case 'site-page': {
      const siteSpace = await ctx.models.SiteSpace.findOne({ _id: input.siteSpaceId, siteId: site._id }).lean();
      if (!siteSpace) throw invalid('siteSpaceId', 'not a site space of this site');
      if (!(await spacePages(ctx, siteSpace.spaceId)).some((page) => page.id === input.pageId)) throw invalid('pageId', 'no such page in the site space');
      return { kind: 'site-page', siteSpaceId: siteSpace._id, pageId: input.pageId };
    }
    case 'path': {
      const [siteSpace] = await ctx.models.SiteSpace.find({ siteId: site._id, spaceId: input.spaceId }).sort({ position: 1 }).limit(1).lean();
      if (!siteSpace) throw invalid('spaceId', 'no site space of this site shows this space');
      const path = input.path.replace(/^\/+|\/+$/g, '');
      const pages = await spacePages(ctx, siteSpace.spaceId);
      const page = path ? pages.find((p) => p.path === path) : pages[0];
      if (!page) throw invalid('path', 'no page at this path in the space');
      return { kind: 'site-page', siteSpaceId: siteSpace._id, pageId: page.id };
    }
  }
}

export interface RedirectFields {
  source: string;
  destination: SiteRedirectDestination;
  captureWildcard: boolean;
  draft: boolean;
  permanent: boolean;
}

/** 400 when the fields do not fit together: a wildcard's suffix is captured only where there is a wildcard. */
function requireConsistent(fields: Pick<RedirectFields, 'source' | 'captureWildcard'>): void {
  if (fields.captureWildcard && !sourceKey(fields.source).wildcard)
    throw httpError.badRequest('Invalid body: captureWildcard: the source has no wildcard (*) to capture');
}

const sourceTaken = (draft: boolean) => httpError.conflict(`source: the site already has a ${draft ? 'draft' : 'live'} redirect from this source`);

export async function createRedirect(ctx: PublishingContext, site: SiteDoc, fields: RedirectFields): Promise<SiteRedirectDoc> {
  requireConsistent(fields);
  const { key, wildcard, prefix } = sourceKey(fields.source);
  if (await ctx.models.SiteRedirect.exists({ siteId: site._id, draft: fields.draft, key })) throw sourceTaken(fields.draft);
  const now = new Date();
  const doc: SiteRedirectDoc = {
    _id: newId(),
    siteId: site._id,
    organizationId: site.organizationId,
    ...fields,
    key,
    wildcard,
    prefix,
    createdAt: now,
    updatedAt: null,
    changedAt: now,
  };
  try {
    await ctx.models.SiteRedirect.create(doc);
  } catch (error) {
    // The site's lock keeps its writers apart; the unique index is the last word.
    if (isDuplicateKeyError(error)) throw sourceTaken(fields.draft);
    throw error;
  }
  return doc;
}

export async function loadRedirect(ctx: PublishingContext, site: SiteDoc, redirectId: string): Promise<SiteRedirectDoc> {
  const redirect = await ctx.models.SiteRedirect.findOne({ _id: redirectId, siteId: site._id }).lean();
  if (!redirect) throw httpError.notFound('Site redirect');
  return redirect;
}

export async function updateRedirect(
  ctx: PublishingContext,
  site: SiteDoc,
  redirect: SiteRedirectDoc,
  changes: Partial<RedirectFields>,
): Promise<SiteRedirectDoc> {
  const next = { ...redirect, ...changes };
  requireConsistent(next);
  const { key, wildcard, prefix } = sourceKey(next.source);
  if (
    (key !== redirect.key || next.draft !== redirect.draft) &&
    (await ctx.models.SiteRedirect.exists({ siteId: site._id, draft: next.draft, key, _id: { $ne: redirect._id } }))
  )
    throw sourceTaken(next.draft);
  const now = new Date();
  const set = { ...changes, key, wildcard, prefix, updatedAt: now, changedAt: now };
  try {
    const updated = await ctx.models.SiteRedirect.findOneAndUpdate({ _id: redirect._id, siteId: site._id }, { $set: set }, { returnDocument: 'after' }).lean();
    if (!updated) throw httpError.notFound('Site redirect');
    return updated;
  } catch (error) {
    if (isDuplicateKeyError(error)) throw sourceTaken(next.draft);
    throw error;
  }
}

/** Whether there was such a redirect to delete. */
export async function deleteRedirect(ctx: PublishingContext, site: Pick<SiteDoc, '_id'>, redirectId: string): Promise<boolean> {
  const { deletedCount } = await ctx.models.SiteRedirect.deleteOne({ _id: redirectId, siteId: site._id });
  return deletedCount > 0;
}

export type RedirectOrder = 'createdAt' | 'updatedAt' | 'source';

/** A page of the site's live (or draft) redirects: the newest first, the last changed first, or by source. */
export function listRedirects(ctx: PublishingContext, site: SiteDoc, filters: { draft?: boolean; search?: string; orderBy: RedirectOrder }, query: ListQuery) {
  const filter: Record<string, unknown> = { siteId: site._id, draft: filters.draft ?? false };
  if (filters.search) filter.source = containsText(filters.search);
  const sortField = filters.orderBy === 'updatedAt' ? 'changedAt' : filters.orderBy;
  return keysetPage(ctx.models.SiteRedirect, { filter, sortField, order: filters.orderBy === 'source' ? 'asc' : 'desc', limit: query.limit, page: query.page });
}

/** The site's redirect from `source`: the live one, else the draft. */
export async function findRedirectBySource(ctx: PublishingContext, site: SiteDoc, source: string): Promise<SiteRedirectDoc> {
  const { key } = sourceKey(source);
  const redirect =
    (await ctx.models.SiteRedirect.findOne({ siteId: site._id, draft: false, key }).lean()) ??
    (await ctx.models.SiteRedirect.findOne({ siteId: site._id, draft: true, key }).lean());
  if (!redirect) throw httpError.notFound('Site redirect');
  return redirect;
}

/** The absolute address a redirect sends to, as the site is now (its root when what it names is gone). */
export async function redirectTarget(ctx: PublishingContext, site: SiteDoc, destination: SiteRedirectDestination): Promise<string> {
  const root = siteAddress(site, ctx.config);
  if (destination.kind === 'external') return destination.url;
  const structure = await loadStructure(ctx, site);
  const below = (segments: string[]) => `${root}${segments.map(encodeURIComponent).join('/')}`;
  if (destination.kind === 'site-section') {
    const section = structure.sections.find((s) => s._id === destination.siteSectionId);
    const isDefault = section && defaultSectionOf(site, structure.sections)?._id === section._id;
    return section && !isDefault ? `${below([section.path])}/` : root;
  }
  const placement = variantPlacements(structure).find((p) => p.siteSpace._id === destination.siteSpaceId);
  if (!placement) return root;
  const variantRoot = placement.prefix.length ? `${below(placement.prefix)}/` : root;
  if (destination.kind === 'site-space') return variantRoot;
  const page = (await spacePages(ctx, placement.siteSpace.spaceId)).find((p) => p.id === destination.pageId);
  return page ? below([...placement.prefix, ...page.path.split('/')]) : variantRoot;
}

/** GitBook's SiteRedirect. */
export function presentRedirect(redirect: SiteRedirectDoc) {
  return {
    object: 'site-redirect' as const,
    id: redirect._id,
    source: redirect.source,
    draft: redirect.draft,
    captureWildcard: redirect.captureWildcard,
    permanent: redirect.permanent,
    destination: redirect.destination,
    createdAt: redirect.createdAt.toISOString(),
    ...(redirect.updatedAt ? { updatedAt: redirect.updatedAt.toISOString() } : {}),
  };
}

/** One operation of a bulk upsert (GitBook's bulkUpsertSiteRedirects). */
export type BulkOperation =
  | { source: string; intent: 'publish' }
  | { source: string; intent: 'live' | 'draft'; captureWildcard: boolean; permanent?: boolean; destination: DestinationInput | null };

export type BulkOutcome =
  | { status: 'created' | 'updated' | 'published'; source: string; draft: boolean; id: string }
  | { status: 'deleted'; source: string; draft: boolean }
  | { status: 'error'; source: string; draft: boolean; error: string };

async function applyOperation(ctx: PublishingContext, site: SiteDoc, operation: BulkOperation): Promise<BulkOutcome> {
  const { source } = operation;
  const { key } = sourceKey(source);
  const find = (draft: boolean) => ctx.models.SiteRedirect.findOne({ siteId: site._id, draft, key }).lean();
  if (operation.intent === 'publish') {
    const draft = await find(true);
    if (!draft) return { status: 'error', source, draft: false, error: 'No draft redirect from this source' };
    const fields: RedirectFields = {
      source: draft.source,
      destination: draft.destination,
      captureWildcard: draft.captureWildcard,
      permanent: draft.permanent,
      draft: false,
    };
    const live = await find(false);
    const published = live ? await updateRedirect(ctx, site, live, fields) : await createRedirect(ctx, site, fields);
    await deleteRedirect(ctx, site, draft._id);
    return { status: 'published', source, draft: false, id: published._id };
  }
  const draft = operation.intent === 'draft';
  if (operation.destination === null) {
    await ctx.models.SiteRedirect.deleteOne({ siteId: site._id, draft, key });
    return { status: 'deleted', source, draft };
  }
  const destination = await checkedDestination(ctx, site, operation.destination, 'destination');
  const existing = await find(draft);
  const fields = {
    source,
    destination,
    captureWildcard: operation.captureWildcard,
    draft,
    ...(operation.permanent !== undefined ? { permanent: operation.permanent } : {}),
  };
  if (existing) return { status: 'updated', source, draft, id: (await updateRedirect(ctx, site, existing, fields))._id };
  return { status: 'created', source, draft, id: (await createRedirect(ctx, site, { permanent: false, ...fields }))._id };
}

/** Each operation on its own, in order: one that fails is reported (status `error`), the others still apply. */
export async function bulkUpsertRedirects(ctx: PublishingContext, site: SiteDoc, operations: BulkOperation[]): Promise<BulkOutcome[]> {
  const outcomes: BulkOutcome[] = [];
  for (const operation of operations) {
    try {
      outcomes.push(await applyOperation(ctx, site, operation));
    } catch (error) {
      if (!(error instanceof HttpError) || error.status >= 500) throw error;
      outcomes.push({ status: 'error', source: operation.source, draft: operation.intent === 'draft', error: error.message });
    }
  }
  return outcomes;
}
