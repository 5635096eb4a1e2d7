import { parseInput, principalOf } from '@quire/http';
import { Router } from 'express';
import { loadSpaceAccess, requireSpaceRole } from '../domain/access';
import type { ContentContext } from '../domain/context';
import { SPACE_ACTION_ROLES } from '../domain/roles';
import { applyTemplate } from '../domain/templates';
import { applyTemplateBody } from './change-request-schemas';

/**
 * POST /v1/spaces/{spaceId}/content/template (OpenAPI applyTemplateToSpace): 201 with no
 * body. Edit role; `changeRequestId` (id or number) targets a change request instead of
 * the primary content: unknown → 404, merged → 409.
 */
export function templatesRouter(ctx: ContentContext): Router {
  const router = Router();

  router.post('/v1/spaces/:spaceId/content/template', async (req, res) => {
    const body = parseInput(applyTemplateBody, req.body, 'body');
    const { userId } = principalOf(req);
    const access = await loadSpaceAccess(ctx, userId, String(req.params.spaceId));
    requireSpaceRole(access, SPACE_ACTION_ROLES.edit, 'apply templates');
    await applyTemplate(ctx, access, userId, body);
    res.status(201).end();
  });

  return router;
}
