import { z } from 'zod';
import { permissions, role, timestamp } from './common';
import { user } from './users';

/** spec "Team" (OpenAPI OrganizationTeam): a team of an organization, with what the caller may do with it. */
export const team = z
  .object({
    object: z.literal('team'),
    id: z.string(),
    title: z.string(),
    members: z.number().int().min(0),
    spaces: z.number().int().min(0),
    createdAt: timestamp,
    permissions: permissions('admin', 'view'),
  })
  .meta({ id: 'OrganizationTeam' });

/** A user's explicit role on a space or collection (OpenAPI UserContentPermission). */
export const userContentPermission = z.object({ permission: role, user }).meta({ id: 'UserContentPermission' });

/** A team's explicit role on a space or collection (OpenAPI: the items of the permission lists of teams). */
export const teamContentPermission = z.object({ permission: role, team }).meta({ id: 'TeamContentPermission' });
