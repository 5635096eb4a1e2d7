import { Reply, route, type Route } from '@quire/http';
import { loadSpaceAccess, requireSpaceRole, SPACE_ACTION_ROLES } from '../access';
import { spaceParams, type ContentContext } from '../kernel';
import { applyTemplateBody } from './template-schemas';
import { applyTemplate } from './templates';

export function templateRoutes(ctx: ContentContext): Route[] {
  return [
    /**
     * OpenAPI applyTemplateToSpace: 201 with no body. Edit role; `changeRequestId` (id or
     * number) targets a change request instead of the primary content: unknown → 404,
     * merged → 409.
     */
    route({
      method: 'post',
      path: '/v1/spaces/:spaceId/content/template',
      summary: "Apply a built-in template to the space's content or to a change request",
      status: 201,
      params: spaceParams,
      body: applyTemplateBody,
      handler: async ({ caller, params, body }) => {
        const access = await loadSpaceAccess(ctx, caller.userId, params.spaceId);
        requireSpaceRole(access, SPACE_ACTION_ROLES.edit, 'apply templates');
        await applyTemplate(ctx, access, caller.userId, body);
        return new Reply(201);
      },
    }),
  ];
}
