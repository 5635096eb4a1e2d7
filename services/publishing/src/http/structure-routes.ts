import { Router } from 'express';
import { decodeCursor, encodeCursor, listEnvelope, listQuerySchema, parseInput, type ListQuery } from '@quire/http';
import type { PublishingContext } from '../domain/context';
import { addSectionToGroup, createGroup, deleteGroup, loadGroup, moveGroup, removeSectionFromGroupIfPresent, updateGroup } from '../domain/groups';
import { loadView } from '../domain/published';
import { addSection, deleteSection, loadSection, moveSection, updateSection } from '../domain/sections';
import { resolveShareKey } from '../domain/share-links';
import { addSiteSpace, deleteSiteSpace, loadSiteSpace, moveSiteSpace, updateSiteSpace } from '../domain/site-spaces';
import { siteApiUrl } from '../domain/urls';
import { isPresentable, isSectionPresentable } from '../domain/structure-view';
import { presentGroup, presentSection, presentSiteSpace } from './presenters';
import { deleteUnderSite, siteOfRequest, writeSiteOfRequest } from './requests';
import {
  addGroupSectionBody,
  createGroupBody,
  createSectionBody,
  createSiteSpaceBody,
  groupParams,
  groupSectionParams,
  listSiteSpacesQuery,
  moveGroupBody,
  moveSectionBody,
  moveSiteSpaceBody,
  sectionParams,
  siteSpaceParams,
  structureListQuery,
  updateGroupBody,
  updateSectionBody,
  updateSiteSpaceBody,
} from './schemas';

const SITE = '/v1/orgs/:organizationId/sites/:siteId';

/**
 * One page of items already in display order (a site's structure is small and is read
 * whole to present it): the cursor is keyset on (position, id), never an offset.
 */
/** One keyset page (by position, then id) of a site's in-memory list, presented, with the list's total. */
function listPage<T extends { _id: string; position: number }, P>(items: T[], query: ListQuery, present: (item: T) => P) {
  let rest = items;
  if (query.page) {
    const { value, id } = decodeCursor('position', query.page);
    const position = Number(value);
    rest = items.filter((item) => item.position > position || (item.position === position && item._id > id));
  }
  const page = rest.slice(0, query.limit);
  const last = page[page.length - 1];
  const next = rest.length > query.limit && last ? encodeCursor('position', last.position, last._id) : undefined;
  return listEnvelope(page.map(present), items.length, next);
}

const whereOf = (position: { before?: unknown } | undefined) => (position?.before ? 'before' : 'after');

/** Sections, section groups and site spaces of a site, and their deprecated moves. */
export function structureRouter(ctx: PublishingContext): Router {
  const router = Router();
  const { config } = ctx;
  const location = (siteId: string, organizationId: string, suffix: string) => siteApiUrl(config, organizationId, siteId, suffix);

  // ----- sections -----
  router.get(`${SITE}/sections`, async (req, res) => {
    const { access, site } = await siteOfRequest(ctx, req);
    const query = parseInput(structureListQuery, req.query, 'query');
    const view = await loadView(ctx, access, site, await resolveShareKey(ctx, site, query.shareKey));
    const sections = view.structure.sections.filter((s) => isSectionPresentable(view, s));
    res.json(listPage(sections, query, (s) => presentSection(view, s)));
  });

  router.post(`${SITE}/sections`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, 'add sections', async ({ access, site }) => {
      const body = parseInput(createSectionBody, req.body, 'body');
      const section = await addSection(ctx, access, site, body);
      const view = await loadView(ctx, access, site);
      const fresh = view.structure.sections.find((s) => s._id === section._id) ?? section;
      res
        .status(201)
        .location(location(site._id, site.organizationId, `/sections/${section._id}`))
        .json(presentSection(view, fresh));
    });
  });

  router.patch(`${SITE}/sections/:siteSectionId`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, 'update sections', async ({ access, site }) => {
      const { siteSectionId } = parseInput(sectionParams, req.params, 'params');
      const section = await loadSection(ctx, site, siteSectionId);
      const body = parseInput(updateSectionBody, req.body, 'body');
      const updated = await updateSection(ctx, site, section, body);
      res.json(presentSection(await loadView(ctx, access, site), updated));
    });
  });

  router.delete(`${SITE}/sections/:siteSectionId`, async (req, res) => {
    const { siteSectionId } = parseInput(sectionParams, req.params, 'params');
    await deleteUnderSite(ctx, req, 'delete sections', (site) => deleteSection(ctx, site, siteSectionId));
    res.status(204).end();
  });

  router.post(`${SITE}/sections/:siteSectionId/move`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, 'move sections', async ({ access, site }) => {
      const { siteSectionId } = parseInput(sectionParams, req.params, 'params');
      const section = await loadSection(ctx, site, siteSectionId);
      const { position } = parseInput(moveSectionBody, req.body ?? {}, 'body');
      const moved = await moveSection(ctx, site, section, whereOf(position), (position?.before ?? position?.after)?.siteSection);
      res.json(presentSection(await loadView(ctx, access, site), moved));
    });
  });

  // ----- section groups -----
  router.get(`${SITE}/section-groups`, async (req, res) => {
    const { access, site } = await siteOfRequest(ctx, req);
    const query = parseInput(listQuerySchema, req.query, 'query');
    const view = await loadView(ctx, access, site);
    res.json(listPage(view.structure.groups, query, (g) => presentGroup(view, g)));
  });

  router.post(`${SITE}/section-groups`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, 'add section groups', async ({ access, site }) => {
      const body = parseInput(createGroupBody, req.body, 'body');
      const group = await createGroup(ctx, site, body);
      res
        .status(201)
        .location(location(site._id, site.organizationId, `/section-groups/${group._id}`))
        .json(presentGroup(await loadView(ctx, access, site), group));
    });
  });

  router.patch(`${SITE}/section-groups/:siteSectionGroupId`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, 'update section groups', async ({ access, site }) => {
      const { siteSectionGroupId } = parseInput(groupParams, req.params, 'params');
      const group = await loadGroup(ctx, site, siteSectionGroupId);
      const body = parseInput(updateGroupBody, req.body, 'body');
      const updated = await updateGroup(ctx, group, body);
      res.json(presentGroup(await loadView(ctx, access, site), updated));
    });
  });

  router.delete(`${SITE}/section-groups/:siteSectionGroupId`, async (req, res) => {
    const { siteSectionGroupId } = parseInput(groupParams, req.params, 'params');
    await deleteUnderSite(ctx, req, 'delete section groups', (site) => deleteGroup(ctx, site, siteSectionGroupId));
    res.status(204).end();
  });

  router.post(`${SITE}/section-groups/:siteSectionGroupId/move`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, 'move section groups', async ({ access, site }) => {
      const { siteSectionGroupId } = parseInput(groupParams, req.params, 'params');
      const group = await loadGroup(ctx, site, siteSectionGroupId);
      const { position } = parseInput(moveGroupBody, req.body ?? {}, 'body');
      const moved = await moveGroup(ctx, site, group, whereOf(position), position?.before ?? position?.after);
      res.json(presentGroup(await loadView(ctx, access, site), moved));
    });
  });

  router.post(`${SITE}/section-groups/:siteSectionGroupId/sections`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, 'change section groups', async ({ access, site }) => {
      const { siteSectionGroupId } = parseInput(groupParams, req.params, 'params');
      const group = await loadGroup(ctx, site, siteSectionGroupId);
      const { sectionId } = parseInput(addGroupSectionBody, req.body, 'body');
      await addSectionToGroup(ctx, site, group, sectionId);
      res
        .status(201)
        .location(location(site._id, site.organizationId, `/section-groups/${group._id}`))
        .json(presentGroup(await loadView(ctx, access, site), group));
    });
  });

  router.delete(`${SITE}/section-groups/:siteSectionGroupId/sections/:siteSectionId`, async (req, res) => {
    const { siteSectionGroupId, siteSectionId } = parseInput(groupSectionParams, req.params, 'params');
    await deleteUnderSite(ctx, req, 'change section groups', async (site) => {
      await removeSectionFromGroupIfPresent(ctx, site, siteSectionGroupId, siteSectionId);
    });
    res.status(204).end();
  });

  // ----- site spaces -----
  router.get(`${SITE}/site-spaces`, async (req, res) => {
    const { access, site } = await siteOfRequest(ctx, req);
    const query = parseInput(listSiteSpacesQuery, req.query, 'query');
    const view = await loadView(ctx, access, site, await resolveShareKey(ctx, site, query.shareKey));
    const matching = view.structure.siteSpaces.filter(
      (s) => isPresentable(view, s) && (query.default === undefined || view.defaults.has(s._id) === query.default),
    );
    res.json(listPage(matching, query, (s) => presentSiteSpace(view, s)));
  });

  router.post(`${SITE}/site-spaces`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, 'add spaces to sites', async ({ access, site }) => {
      const body = parseInput(createSiteSpaceBody, req.body, 'body');
      const created = await addSiteSpace(ctx, access, site, body);
      const view = await loadView(ctx, access, site);
      res
        .status(201)
        .location(location(site._id, site.organizationId, `/site-spaces/${created._id}`))
        .json(presentSiteSpace(view, created));
    });
  });

  router.patch(`${SITE}/site-spaces/:siteSpaceId`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, 'update site spaces', async ({ access, site }) => {
      const { siteSpaceId } = parseInput(siteSpaceParams, req.params, 'params');
      const siteSpace = await loadSiteSpace(ctx, site, siteSpaceId);
      const body = parseInput(updateSiteSpaceBody, req.body, 'body');
      const updated = await updateSiteSpace(ctx, access, site, siteSpace, body);
      res.json(presentSiteSpace(await loadView(ctx, access, site), updated));
    });
  });

  router.delete(`${SITE}/site-spaces/:siteSpaceId`, async (req, res) => {
    const { siteSpaceId } = parseInput(siteSpaceParams, req.params, 'params');
    await deleteUnderSite(ctx, req, 'remove spaces from sites', (site) => deleteSiteSpace(ctx, site, siteSpaceId));
    res.status(204).end();
  });

  router.post(`${SITE}/site-spaces/:siteSpaceId/move`, async (req, res) => {
    await writeSiteOfRequest(ctx, req, 'move site spaces', async ({ access, site }) => {
      const { siteSpaceId } = parseInput(siteSpaceParams, req.params, 'params');
      const siteSpace = await loadSiteSpace(ctx, site, siteSpaceId);
      const { position } = parseInput(moveSiteSpaceBody, req.body ?? {}, 'body');
      const moved = await moveSiteSpace(ctx, site, siteSpace, whereOf(position), (position?.before ?? position?.after)?.siteSpace);
      res.json(presentSiteSpace(await loadView(ctx, access, site), moved));
    });
  });

  return router;
}
