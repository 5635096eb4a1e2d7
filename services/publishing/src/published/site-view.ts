import { createHash } from 'node:crypto';
import { clientsOf } from '@quire/http';
import { byDocumentIds, declareCache, documentTag, InvalidatedCache, serviceCollection, type LruCache } from '@quire/runtime';
import type { SiteDoc, SiteSectionDoc, SiteSectionGroupDoc, SiteSpaceDoc } from '../db/models';
import { conditionHolds, type VisitorClaims } from '../domain/conditions';
import type { PublishingContext } from '../domain/context';
import { siteVersionTag } from '../domain/site-version';
import { defaultSectionOf, defaultSiteSpaceIds, loadStructure, type SiteStructure } from '../domain/structure';
import type { SiteAddress } from './address';
import { currentContent } from './space-content';

/*
 * A published site as one visitor sees it: the sections, groups and site spaces whose
 * conditions hold for their claims, the spaces' current revisions, and which section, variant
 * and page an address names. The structure is kept in this process under the site's version
 * (domain/site-version) and the spaces' states until content writes them (spaceReaderOf), so
 * while neither changes a view costs no call to Redis, the datastore or content.
 */

export interface SpaceState {
  id: string;
  title: string;
  revisionId: string;
  updated: string;
}

export interface SiteView {
  site: SiteDoc;
  address: SiteAddress;
  /** The site is organised in sections (its root shows the default one). */
  sectioned: boolean;
  /** Sections shown to the visitor, in order. */
  sections: SiteSectionDoc[];
  groups: SiteSectionGroupDoc[];
  /** Variants shown to the visitor, per section id ('' for the site root). */
  variants: Map<string, SiteSpaceDoc[]>;
  spaces: Map<string, SpaceState>;
  /** The site's defaults (what the published addresses leave out). */
  defaults: Set<string>;
  defaultSection?: SiteSectionDoc;
  /** Changes with anything shown around a page: part of every cache key and ETag. */
  version: string;
  /**
   * Set when every visitor sees the site alike (a site open to anyone, without conditions): the
   * cache tags of what its pages are made of (the site's version, its spaces), for the gateway
   * to answer revisits itself (shared-answer).
   */
  sharedTags?: string[];
}

export interface Location {
  section?: SiteSectionDoc;
  siteSpace: SiteSpaceDoc;
  /** The page path below the variant ('' for its first page). */
  pagePath: string;
}

export interface KeptStructure {
  version: string;
  structure: Omit<SiteStructure, 'site'>;
  /** A section or site space has a condition: visitors' views differ with their claims. */
  conditional: boolean;
  at: number;
}

/** Sites' structures by site id (ctx.caches.siteStructures), each under the version it was read at. */
export const siteViewCaches = { siteStructures: declareCache<KeptStructure>(16) };

declare module '../domain/context' {
  interface PublishingCaches {
    siteStructures: LruCache<KeptStructure>;
  }
}

/** Heap of one document of a structure (a section, group or site space), estimated. */
const STRUCTURE_DOC_HEAP_BYTES = 1024;
/** A structure read longer ago than this is read again even if no change was announced (a lost bump). */
const STRUCTURE_TTL_MS = 60_000;
/** The site's structure under `version` (read before `site` was: see address.ts), as kept. */
async function structureOf(ctx: PublishingContext, site: SiteDoc, version: string): Promise<KeptStructure> {
  const kept = ctx.caches.siteStructures.get(site._id);
  if (kept && kept.version === version && Date.now() - kept.at < STRUCTURE_TTL_MS) return kept;
  const { site: _site, ...structure } = await loadStructure(ctx, site);
  const docs = 1 + structure.sections.length + structure.groups.length + structure.siteSpaces.length;
  const conditional = structure.sections.some((section) => section.condition) || structure.siteSpaces.some((siteSpace) => siteSpace.condition);
  const fresh: KeptStructure = { version, structure, conditional, at: Date.now() };
  ctx.caches.siteStructures.set(site._id, fresh, docs * STRUCTURE_DOC_HEAP_BYTES);
  return fresh;
}

/** A space's state kept longer than this is read again, should a broadcast have been missed. */
const SPACE_STATE_TTL_MS = 60_000;

/** What this replica keeps of a space: its state, or nothing (a space gone, or another organization's). */
type KeptSpace = { organizationId: string; state?: SpaceState };

/** The spaces' states this replica keeps, and the reads ahead under way (spaceReaderOf). */
interface SpaceReader {
  cache: InvalidatedCache<KeptSpace>;
  ahead: Map<string, Promise<void>>;
}
const spaceReaders = new WeakMap<PublishingContext['redis'], SpaceReader>();

/**
 * Spaces' states by id, kept in this replica and dropped by content's own writes: every write of
 * a space document (a merge moving its revision, a new title or language, the trash) is
 * broadcast on Redis's invalidation channel before it returns (@quire/runtime DocumentCache),
 * naming the collection `<content's database>.spaces` and the ids. So a merge shows on the very
 * next page, and an unchanged space costs no call to content.
 *
 * A space this replica shows that is written (a merge, most often) is read again at once, its
 * state and content in one call (currentContent), before a visitor asks: the broadcast comes
 * before the write's answer, so the next page waits for a read already under way (`ahead`)
 * rather than one it starts. One read per space at a time (a space written again meanwhile is
 * read once more after). Best effort: a failure is left to the next page's own read.
 */
function spaceReaderOf(ctx: PublishingContext): SpaceReader {
  const existing = spaceReaders.get(ctx.redis);
  if (existing) return existing;
  const ahead = new Map<string, Promise<void>>();
  const writtenMeanwhile = new Set<string>();
  const readAhead = (spaceId: string): void => {
    if (ahead.has(spaceId)) {
      writtenMeanwhile.add(spaceId);
      return;
    }
    const mark = cache.mark();
    const reading = currentContent(ctx, spaceId)
      .then(({ organizationId, state }) => {
        if (state) cache.keep(spaceId, { organizationId, state }, mark);
      })
      .catch((error: unknown) => ctx.logger.debug({ err: (error as Error).message, spaceId }, 'reading a space ahead failed'))
      .finally(() => {
        ahead.delete(spaceId);
        if (writtenMeanwhile.delete(spaceId)) readAhead(spaceId);
      });
    ahead.set(spaceId, reading);
  };
  const cache: InvalidatedCache<KeptSpace> = new InvalidatedCache<KeptSpace>(ctx.redis, {
    name: 'published-spaces',
    max: 50_000,
    ttlMs: SPACE_STATE_TTL_MS,
    select: byDocumentIds(serviceCollection('content', 'spaces', ctx.config)),
    logger: ctx.logger,
    onDropped: (ids) => ids.forEach(readAhead),
  });
  const reader = { cache, ahead };
  spaceReaders.set(ctx.redis, reader);
  return reader;
}

/**
 * The live spaces of the site's organization among `ids` with their current revisions: those
 * not kept, once the reads ahead of them are over, in one BatchGetSpaces.
 */
async function spaceStates(ctx: PublishingContext, organizationId: string, ids: string[]): Promise<Map<string, SpaceState>> {
  const { cache, ahead } = spaceReaderOf(ctx);
  const unique = [...new Set(ids)];
  const readingAhead = unique.flatMap((id) => (cache.lookup(id) ? [] : (ahead.get(id) ?? [])));
  if (readingAhead.length) await Promise.all(readingAhead);
  const states = new Map<string, SpaceState>();
  const missing: string[] = [];
  for (const id of unique) {
    const kept = cache.lookup(id);
    if (!kept) missing.push(id);
    else if (kept.state && kept.organizationId === organizationId) states.set(id, kept.state);
  }
  if (!missing.length) return states;
  const mark = cache.mark();
  const { spaces } = await clientsOf(ctx).content.batchGetSpaces({ ids: missing, includeDeleted: false, lean: true });
  const found = new Map(spaces.map((space) => [space.id, space]));
  for (const id of missing) {
    const space = found.get(id);
    const state =
      space && !space.deleteTime
        ? { id: space.id, title: space.title, revisionId: space.revisionId, updated: space.updateTime?.toISOString() ?? '' }
        : undefined;
    cache.keep(id, { organizationId: space?.organizationId ?? '', ...(state ? { state } : {}) }, mark);
    if (state && space?.organizationId === organizationId) states.set(id, state);
  }
  return states;
}

/**
 * The last view made under a kept structure without conditions (whose visitors all see the same
 * view, whatever their claims), with what it was made of: reused while the site and the spaces'
 * states are the same objects and the address's root the same.
 */
interface LastView {
  site: SiteDoc;
  base: string;
  states: Array<SpaceState | undefined>;
  view: SiteView;
}
const lastViews = new WeakMap<KeptStructure, LastView>();

export async function siteView(ctx: PublishingContext, address: SiteAddress, claims: VisitorClaims): Promise<SiteView> {
  const kept = await structureOf(ctx, address.site, address.version);
  const { version } = kept;
  const structure: SiteStructure = { ...kept.structure, site: address.site };
  const spaceIds = structure.siteSpaces.map((s) => s.spaceId);
  const spaces = await spaceStates(ctx, address.site.organizationId, spaceIds);
  const reusable = !kept.conditional;
  if (reusable) {
    const last = lastViews.get(kept);
    if (last && last.site === address.site && last.base === address.base && spaceIds.every((id, i) => spaces.get(id) === last.states[i])) {
      return { ...last.view, address };
    }
  }
  const view = viewOf(address, structure, version, spaces, claims, reusable ? sharedTagsOf(ctx, structure) : undefined);
  if (reusable) lastViews.set(kept, { site: address.site, base: address.base, states: spaceIds.map((id) => spaces.get(id)), view });
  return view;
}

/** A site only some visitors may read (a share link's, or signed-in visitors'). */
export const restrictedSite = (site: Pick<SiteDoc, 'visibility'>): boolean => site.visibility === 'share-link' || site.visibility === 'visitor-auth';

/** The tags of a site every visitor sees alike: its version and its spaces (a merge, a rename, the trash); none for a restricted site. */
function sharedTagsOf(ctx: PublishingContext, structure: SiteStructure): string[] | undefined {
  const { site } = structure;
  if (restrictedSite(site)) return undefined;
  const spaces = serviceCollection('content', 'spaces', ctx.config);
  return [siteVersionTag(site._id), ...new Set(structure.siteSpaces.map((siteSpace) => documentTag(spaces, siteSpace.spaceId)))];
}

function viewOf(
  address: SiteAddress,
  structure: SiteStructure,
  version: string,
  spaces: Map<string, SpaceState>,
  claims: VisitorClaims,
  sharedTags: string[] | undefined,
): SiteView {
  const shownSiteSpaces = structure.siteSpaces.filter((s) => spaces.has(s.spaceId) && conditionHolds(s.condition, claims));
  const variants = new Map<string, SiteSpaceDoc[]>();
  for (const siteSpace of shownSiteSpaces) variants.set(siteSpace.sectionId ?? '', [...(variants.get(siteSpace.sectionId ?? '') ?? []), siteSpace]);
  const sections = structure.sections.filter((s) => conditionHolds(s.condition, claims) && variants.has(s._id));
  const usedGroups = new Set<string>();
  const groupsById = new Map(structure.groups.map((g) => [g._id, g]));
  for (const section of sections) {
    for (let id = section.sectionGroupId; id && !usedGroups.has(id); id = groupsById.get(id)?.parentId) usedGroups.add(id);
  }
  const groups = structure.groups.filter((g) => usedGroups.has(g._id));
  const hash = createHash('sha256');
  hash.update(`${address.site._id}\n${version}\n${address.site.updatedAt.toISOString()}\n${address.base}\n`);
  for (const section of sections) hash.update(`s:${section._id}\n`);
  for (const siteSpace of shownSiteSpaces) {
    const space = spaces.get(siteSpace.spaceId);
    hash.update(`v:${siteSpace._id}:${space?.revisionId}:${space?.updated}:${space?.title}\n`);
  }
  const defaults = defaultSiteSpaceIds(structure);
  const defaultSection = defaultSectionOf(address.site, structure.sections);
  return {
    site: address.site,
    address,
    sectioned: structure.sections.length > 0,
    sections,
    groups,
    variants,
    spaces,
    defaults,
    defaultSection,
    version: hash.digest('base64url').slice(0, 27),
    ...(sharedTags ? { sharedTags } : {}),
  };
}

/** The section, variant and page path an address below the site's root names; undefined: nothing the visitor may see. */
export function locate(view: SiteView, segments: string[]): Location | undefined {
  let rest = segments;
  let section: SiteSectionDoc | undefined;
  if (view.sectioned) {
    section = view.sections.find((s) => s.path === rest[0]);
    if (section) rest = rest.slice(1);
    else section = view.sections.find((s) => s._id === view.defaultSection?._id) ?? view.sections[0];
    if (!section) return undefined;
  }
  const variants = view.variants.get(section?._id ?? '') ?? [];
  let siteSpace = variants.find((s) => s.path === rest[0] && !view.defaults.has(s._id));
  if (siteSpace) rest = rest.slice(1);
  else siteSpace = variants.find((s) => view.defaults.has(s._id)) ?? variants[0];
  if (!siteSpace) return undefined;
  return { section, siteSpace, pagePath: rest.join('/') };
}

/** Every variant the visitor sees, with its section (sections in order; the site root's when it has none). */
export function shownVariants(view: SiteView): Array<{ section?: SiteSectionDoc; siteSpace: SiteSpaceDoc }> {
  const sections = view.sectioned ? view.sections : [undefined];
  return sections.flatMap((section) => (view.variants.get(section?._id ?? '') ?? []).map((siteSpace) => ({ section, siteSpace })));
}

/** The address path of a section's root. */
export function sectionPath(view: SiteView, section: SiteSectionDoc | undefined): string {
  if (!section || view.defaultSection?._id === section._id) return view.address.basePath;
  return `${view.address.basePath}${encodeURIComponent(section.path)}/`;
}

/** The address path of a variant's root (its first page). */
export function variantPath(view: SiteView, section: SiteSectionDoc | undefined, siteSpace: SiteSpaceDoc): string {
  const base = sectionPath(view, section);
  return view.defaults.has(siteSpace._id) ? base : `${base}${encodeURIComponent(siteSpace.path)}/`;
}
