import { z } from 'zod';
import { role, timestamp, urls } from './common';

/** spec "User". `email` is left out for callers who may not see it (guests, other organizations). */
export const user = z
  .object({
    object: z.literal('user'),
    id: z.string(),
    displayName: z.string(),
    email: z.string().optional(),
    photoURL: z.string().optional(),
    urls: urls(['location']),
  })
  .meta({ id: 'User' });

/** spec "Member (organization member)". `sites`: how many sites the member was granted. */
export const member = z
  .object({
    object: z.literal('member'),
    id: z.string(),
    role: role.nullable(),
    user,
    disabled: z.boolean(),
    joinedAt: timestamp,
    lastSeenAt: timestamp.optional(),
    sso: z.boolean(),
    spaces: z.number().int().min(0),
    teams: z.number().int().min(0),
    sites: z.number().int().min(0),
  })
  .meta({ id: 'Member' });
