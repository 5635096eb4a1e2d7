import { z } from 'zod';
import { httpUrlSchema, listQuerySchema, orderSchema, idSchema } from '@quire/http';
import { ROLES } from '@quire/runtime';
import { TEAM_ROLES } from '../db/directory';
import { parseCertificate } from '../domain/saml';

/** Input of the members, teams and SAML operations (limits of the spec and the OpenAPI). */

export const memberListQuery = listQuerySchema.extend({
  order: orderSchema,
  role: z.enum([...ROLES, 'guest']).optional(),
  search: z.string().max(512).optional(),
  sort: z.enum(['joinedAt', 'lastSeenAt', 'name']).default('joinedAt'),
});

export const updateMemberBody = z.object({ role: z.enum(ROLES).nullable() }).strict();

export const memberSpacesQuery = listQuerySchema.extend({ order: orderSchema });

const titleFilter = z.string().max(64).optional();
export const memberTeamsQuery = listQuerySchema.extend({ title: titleFilter });
export const teamListQuery = listQuerySchema.extend({ owner: idSchema.optional(), title: titleFilter });

/** OpenAPI OrganizationTeamTitle: 1..64 characters. */
const teamTitle = z
  .string()
  .min(1)
  .max(64)
  .regex(/^\S(.*\S)?$/s, 'must not start or end with whitespace');
/** A user id or an e-mail address. */
const userRef = z.string().min(1).max(320);

export const createTeamBody = z.object({ title: teamTitle, members: z.array(userRef).max(1000).optional() }).strict();
export const updateTeamBody = z.object({ title: teamTitle }).strict();
export const updateTeamMembersBody = z
  .object({
    add: z.array(userRef).max(1000).optional(),
    remove: z.array(userRef).max(1000).optional(),
    memberships: z
      .record(userRef, z.object({ role: z.enum(TEAM_ROLES) }).strict())
      .refine((map) => Object.keys(map).length <= 1000, 'at most 1000 entries')
      .optional(),
  })
  .strict();
export const teamMemberRoleBody = z.object({ role: z.enum(TEAM_ROLES).default('member') }).strict();

const samlFields = {
  label: z.string().min(1).max(30),
  entityID: z.string().min(1).max(1024),
  certificate: z
    .string()
    .max(10000)
    .refine((text) => parseCertificate(text) !== null, 'must be an X.509 certificate (PEM or base64)'),
  ssoURL: httpUrlSchema,
  defaultTeam: idSchema.nullable(),
  defaultRole: z.enum(ROLES).nullable(),
};
export const createSamlProviderBody = z.object(samlFields).partial().required({ label: true }).strict();
export const updateSamlProviderBody = z.object(samlFields).partial().strict();

export const acsBody = z.object({ SAMLResponse: z.string().min(1).max(1_000_000), RelayState: z.string().max(2048).optional() });
