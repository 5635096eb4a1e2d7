import { z } from 'zod';
import { httpUrlSchema, standaloneMergeRulesSchema, idSchema } from '@quire/http';
import { ROLES } from '@quire/runtime';

/** OpenAPI OrganizationTitle: 2..255 characters, not blank at either end. */
const organizationTitle = z
  .string()
  .min(2)
  .max(255)
  .regex(/^\S(.*\S)?$/s, 'must not start or end with whitespace');
const emailDomains = z.array(z.string().regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'must be a domain name')).max(100);
export const createOrganizationBody = z.object({
  title: organizationTitle,
  emailDomains: emailDomains.optional(),
  type: z.enum(['business', 'community']).optional(),
  useCase: z
    .enum(['internalDocs', 'docsSite', 'audienceControlledSite', 'productDocs', 'teamKnowledgeBase', 'designSystem', 'openSourceDocs', 'notes', 'other'])
    .optional(),
  communityType: z.enum(['nonProfit', 'openSource', 'education']).optional(),
});

export const updateOrganizationBody = z
  .object({
    title: organizationTitle,
    emailDomains,
    hostname: z
      .string()
      .min(3)
      .max(32)
      .regex(/^[a-z0-9][a-z0-9-]*[a-z0-9]$/, 'must be lowercase letters, digits and dashes'),
    // null puts back the default (read): GitBook's null ("guests") is not an organization role of Quire's.
    defaultRole: z.enum(ROLES).nullable(),
    defaultContent: z
      .object({ type: z.literal('site'), site: idSchema })
      .strict()
      .nullable(),
    // Shown as a link and an image: only http(s) addresses, never `javascript:` or `data:`.
    logo: httpUrlSchema.nullable(),
    sso: z.boolean(),
    ai: z.boolean(),
    inviteLinks: z.boolean(),
    mergeRules: standaloneMergeRulesSchema,
  })
  .partial()
  .strict();

export const organizationParams = z.object({ organizationId: idSchema });
export const userParams = z.object({ userId: idSchema });

export const memberParams = z.object({ organizationId: idSchema, userId: idSchema });
export const teamParams = z.object({ organizationId: idSchema, teamId: idSchema });
export const teamMemberParams = teamParams.extend({ userId: idSchema });
export const samlParams = z.object({ organizationId: idSchema, samlProviderId: idSchema });
export const publicSamlParams = z.object({ samlProviderId: idSchema });
