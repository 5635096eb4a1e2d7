import { idSchema } from '@quire/http';
import { ROLES } from '@quire/runtime';
import { z } from 'zod';

/** Request schemas of the permission routes of spaces and collections (OpenAPI space-permissions, collection-permissions). */

/** OpenAPI MemberRoleOrGuest: a role, or null. */
const roleOrGuest = z.enum(ROLES).nullable();

/** The path of one resource's permissions (`spaceId` or `collectionId`), optionally one user's or team's. */
export function permissionParams(resourceParam: 'spaceId' | 'collectionId') {
  return {
    resource: z.object({ [resourceParam]: idSchema }),
    user: z.object({ [resourceParam]: idSchema, userId: idSchema }),
    team: z.object({ [resourceParam]: idSchema, teamId: idSchema }),
  };
}

/** OpenAPI InviteUsersAndTeams. */
export const inviteBody = z
  .object({
    role: roleOrGuest,
    users: z.array(idSchema).min(1).max(100).optional(),
    teams: z.array(idSchema).min(1).max(100).optional(),
  })
  .refine((b) => b.users !== undefined || b.teams !== undefined, { message: 'give users or teams' });

export const updatePermissionBody = z.object({ role: roleOrGuest });
