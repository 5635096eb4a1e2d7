import { list, siteSection as siteSectionObject, siteSectionGroup as siteSectionGroupObject, siteSpace as siteSpaceObject } from '@quire/contract';
import { created, listQuerySchema, memoryPage, route, type MemoryOrder, type Route } from '@quire/http';
import type { PublishingContext } from '../domain/context';
import { addSectionToGroup, createGroup, deleteGroup, loadGroup, moveGroup, removeSectionFromGroupIfPresent, updateGroup } from '../domain/groups';
import { loadView } from '../domain/published';
import { addSection, deleteSection, loadSection, moveSection, updateSection } from '../domain/sections';
import { resolveShareKey } from '../domain/share-links';
import { addSiteSpace, deleteSiteSpace, loadSiteSpace, moveSiteSpace, updateSiteSpace } from '../domain/site-spaces';
import { siteApiUrl } from '../domain/urls';
import { isPresentable, isSectionPresentable } from '../domain/structure-view';
import { presentGroup, presentSection, presentSiteSpace } from '../presenters/site-presenter';
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
  siteParams,
  siteSpaceParams,
  structureListQuery,
  updateGroupBody,
  updateSectionBody,
  updateSiteSpaceBody,
} from './site-schemas';

const SITE = '/v1/orgs/:organizationId/sites/:siteId';

/** A site's structure is small and read whole to present it: its lists page in memory, by position then id. */
const byPosition: MemoryOrder<{ _id: string; position: number }> = { cursor: 'position', positionOf: (item) => [item.position, item._id] };

const whereOf = (position: { before?: unknown } | undefined) => (position?.before ? 'before' : 'after');

/** Sections, section groups and site spaces of a site, and their deprecated moves. */
export function structureRoutes(ctx: PublishingContext): Route[] {
  const { config } = ctx;
  const location = (siteId: string, organizationId: string, suffix: string) => siteApiUrl(config, organizationId, siteId, suffix);

  const sections: Route[] = [
    route({
      method: 'get',
      path: `${SITE}/sections`,
      summary: "List a site's sections",
      response: list(siteSectionObject),
      params: siteParams,
      query: structureListQuery,
      handler: async ({ caller, params, query }) => {
        const { access, site } = await siteOfRequest(ctx, caller, params);
        const view = await loadView(ctx, access, site, await resolveShareKey(ctx, site, query.shareKey));
        const sections = view.structure.sections.filter((s) => isSectionPresentable(view, s));
        return memoryPage(sections, byPosition, query, (s) => presentSection(view, s));
      },
    }),

    route({
      method: 'post',
      path: `${SITE}/sections`,
      summary: 'Add a section to a site',
      response: siteSectionObject,
      status: 201,
      params: siteParams,
      body: createSectionBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'add sections', async ({ access, site }) => {
          const section = await addSection(ctx, access, site, body);
          const view = await loadView(ctx, access, site);
          const fresh = view.structure.sections.find((s) => s._id === section._id) ?? section;
          return created(location(site._id, site.organizationId, `/sections/${section._id}`), presentSection(view, fresh));
        }),
    }),

    route({
      method: 'patch',
      path: `${SITE}/sections/:siteSectionId`,
      summary: 'Update a site section',
      response: siteSectionObject,
      params: sectionParams,
      body: updateSectionBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'update sections', async ({ access, site }) => {
          const section = await loadSection(ctx, site, params.siteSectionId);
          const updated = await updateSection(ctx, site, section, body);
          return presentSection(await loadView(ctx, access, site), updated);
        }),
    }),

    route({
      method: 'delete',
      path: `${SITE}/sections/:siteSectionId`,
      summary: 'Delete a site section',
      params: sectionParams,
      handler: ({ caller, params }) => deleteUnderSite(ctx, caller, params, 'delete sections', (site) => deleteSection(ctx, site, params.siteSectionId)),
    }),

    route({
      method: 'post',
      path: `${SITE}/sections/:siteSectionId/move`,
      summary: 'Move a site section (deprecated)',
      response: siteSectionObject,
      params: sectionParams,
      body: moveSectionBody,
      handler: ({ caller, params, body: { position } }) =>
        writeSiteOfRequest(ctx, caller, params, 'move sections', async ({ access, site }) => {
          const section = await loadSection(ctx, site, params.siteSectionId);
          const moved = await moveSection(ctx, site, section, whereOf(position), (position?.before ?? position?.after)?.siteSection);
          return presentSection(await loadView(ctx, access, site), moved);
        }),
    }),
  ];

  const groups: Route[] = [
    route({
      method: 'get',
      path: `${SITE}/section-groups`,
      summary: "List a site's section groups",
      response: list(siteSectionGroupObject),
      params: siteParams,
      query: listQuerySchema,
      handler: async ({ caller, params, query }) => {
        const { access, site } = await siteOfRequest(ctx, caller, params);
        const view = await loadView(ctx, access, site);
        return memoryPage(view.structure.groups, byPosition, query, (g) => presentGroup(view, g));
      },
    }),

    route({
      method: 'post',
      path: `${SITE}/section-groups`,
      summary: 'Add a section group to a site',
      response: siteSectionGroupObject,
      status: 201,
      params: siteParams,
      body: createGroupBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'add section groups', async ({ access, site }) => {
          const group = await createGroup(ctx, site, body);
          return created(location(site._id, site.organizationId, `/section-groups/${group._id}`), presentGroup(await loadView(ctx, access, site), group));
        }),
    }),

    route({
      method: 'patch',
      path: `${SITE}/section-groups/:siteSectionGroupId`,
      summary: 'Update a section group',
      response: siteSectionGroupObject,
      params: groupParams,
      body: updateGroupBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'update section groups', async ({ access, site }) => {
          const group = await loadGroup(ctx, site, params.siteSectionGroupId);
          const updated = await updateGroup(ctx, group, body);
          return presentGroup(await loadView(ctx, access, site), updated);
        }),
    }),

    route({
      method: 'delete',
      path: `${SITE}/section-groups/:siteSectionGroupId`,
      summary: 'Delete a section group',
      params: groupParams,
      handler: ({ caller, params }) =>
        deleteUnderSite(ctx, caller, params, 'delete section groups', (site) => deleteGroup(ctx, site, params.siteSectionGroupId)),
    }),

    route({
      method: 'post',
      path: `${SITE}/section-groups/:siteSectionGroupId/move`,
      summary: 'Move a section group (deprecated)',
      response: siteSectionGroupObject,
      params: groupParams,
      body: moveGroupBody,
      handler: ({ caller, params, body: { position } }) =>
        writeSiteOfRequest(ctx, caller, params, 'move section groups', async ({ access, site }) => {
          const group = await loadGroup(ctx, site, params.siteSectionGroupId);
          const moved = await moveGroup(ctx, site, group, whereOf(position), position?.before ?? position?.after);
          return presentGroup(await loadView(ctx, access, site), moved);
        }),
    }),

    route({
      method: 'post',
      path: `${SITE}/section-groups/:siteSectionGroupId/sections`,
      summary: 'Add a section to a section group',
      response: siteSectionGroupObject,
      status: 201,
      params: groupParams,
      body: addGroupSectionBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'change section groups', async ({ access, site }) => {
          const group = await loadGroup(ctx, site, params.siteSectionGroupId);
          await addSectionToGroup(ctx, site, group, body.sectionId);
          return created(location(site._id, site.organizationId, `/section-groups/${group._id}`), presentGroup(await loadView(ctx, access, site), group));
        }),
    }),

    route({
      method: 'delete',
      path: `${SITE}/section-groups/:siteSectionGroupId/sections/:siteSectionId`,
      summary: 'Remove a section from a section group',
      params: groupSectionParams,
      handler: ({ caller, params }) =>
        deleteUnderSite(ctx, caller, params, 'change section groups', async (site) => {
          await removeSectionFromGroupIfPresent(ctx, site, params.siteSectionGroupId, params.siteSectionId);
        }),
    }),
  ];

  const siteSpaces: Route[] = [
    route({
      method: 'get',
      path: `${SITE}/site-spaces`,
      summary: "List a site's spaces (variants)",
      response: list(siteSpaceObject),
      params: siteParams,
      query: listSiteSpacesQuery,
      handler: async ({ caller, params, query }) => {
        const { access, site } = await siteOfRequest(ctx, caller, params);
        const view = await loadView(ctx, access, site, await resolveShareKey(ctx, site, query.shareKey));
        const matching = view.structure.siteSpaces.filter(
          (s) => isPresentable(view, s) && (query.default === undefined || view.defaults.has(s._id) === query.default),
        );
        return memoryPage(matching, byPosition, query, (s) => presentSiteSpace(view, s));
      },
    }),

    route({
      method: 'post',
      path: `${SITE}/site-spaces`,
      summary: 'Add a space to a site',
      response: siteSpaceObject,
      status: 201,
      params: siteParams,
      body: createSiteSpaceBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'add spaces to sites', async ({ access, site }) => {
          const siteSpace = await addSiteSpace(ctx, access, site, body);
          const view = await loadView(ctx, access, site);
          return created(location(site._id, site.organizationId, `/site-spaces/${siteSpace._id}`), presentSiteSpace(view, siteSpace));
        }),
    }),

    route({
      method: 'patch',
      path: `${SITE}/site-spaces/:siteSpaceId`,
      summary: 'Update a site space',
      response: siteSpaceObject,
      params: siteSpaceParams,
      body: updateSiteSpaceBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'update site spaces', async ({ access, site }) => {
          const siteSpace = await loadSiteSpace(ctx, site, params.siteSpaceId);
          const updated = await updateSiteSpace(ctx, access, site, siteSpace, body);
          return presentSiteSpace(await loadView(ctx, access, site), updated);
        }),
    }),

    route({
      method: 'delete',
      path: `${SITE}/site-spaces/:siteSpaceId`,
      summary: 'Remove a space from a site',
      params: siteSpaceParams,
      handler: ({ caller, params }) =>
        deleteUnderSite(ctx, caller, params, 'remove spaces from sites', (site) => deleteSiteSpace(ctx, site, params.siteSpaceId)),
    }),

    route({
      method: 'post',
      path: `${SITE}/site-spaces/:siteSpaceId/move`,
      summary: 'Move a site space (deprecated)',
      response: siteSpaceObject,
      params: siteSpaceParams,
      body: moveSiteSpaceBody,
      handler: ({ caller, params, body: { position } }) =>
        writeSiteOfRequest(ctx, caller, params, 'move site spaces', async ({ access, site }) => {
          const siteSpace = await loadSiteSpace(ctx, site, params.siteSpaceId);
          const moved = await moveSiteSpace(ctx, site, siteSpace, whereOf(position), (position?.before ?? position?.after)?.siteSpace);
          return presentSiteSpace(await loadView(ctx, access, site), moved);
        }),
    }),
  ];

  return [...sections, ...groups, ...siteSpaces];
}
