import { z } from 'zod';
import { team } from './access';
import { permissions, role, timestamp, url, urls } from './common';
import { space } from './spaces';
import { member, user } from './users';

const mergeRule = z.object({ rule: z.literal('require_specific_reviewers'), users: z.array(z.string()) });

/**
 * An organization's own merge rules (OpenAPI MergeRulesStandaloneConfiguration): its rules,
 * or none. An organization has no parent to inherit from.
 */
export const organizationMergeRules = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('rules'), rules: z.array(mergeRule), requireNoNewBrokenLinks: z.boolean().optional() }),
    z.object({ type: z.literal('none') }),
  ])
  .meta({ id: 'OrganizationMergeRules' });

const pricePair = z.object({ monthly: z.number().min(0), yearly: z.number().min(0) });

/** spec Organization `billing` (OpenAPI OrganizationBilling: the fields Quire fills). */
export const organizationBilling = z
  .object({
    interval: z.enum(['monthly', 'yearly']),
    endDate: timestamp.nullable(),
    hasPaymentFailed: z.boolean(),
    canCheckout: z.boolean(),
    isScheduledToCancel: z.boolean(),
    canChangeInterval: z.boolean(),
    canUseSAML: z.boolean(),
    creditsBundle: z.enum(['none', '135001500', '240006000', '4200018000', '6000040000']).nullable(),
    aiCreditAlertThreshold: z.number().min(0).max(100).nullable(),
    pricing: z.object({
      members: z.object({ plus_2024: pricePair, pro_2024: pricePair }),
      sites: z.object({ premium: pricePair, ultimate: pricePair }),
    }),
    usageAddons: z.record(z.string(), z.object({ enabled: z.boolean() })),
  })
  .meta({ id: 'OrganizationBilling' });

/** spec "Organization" (OpenAPI Organization): as the caller sees it. */
export const organization = z
  .object({
    object: z.literal('organization'),
    id: z.string(),
    title: z.string().min(2).max(255),
    createdAt: timestamp,
    emailDomains: z.array(z.string()),
    hostname: z.string().min(3).max(32).optional(),
    type: z.enum(['business', 'community']),
    useCase: z
      .enum(['internalDocs', 'docsSite', 'audienceControlledSite', 'productDocs', 'teamKnowledgeBase', 'designSystem', 'openSourceDocs', 'notes', 'other'])
      .optional(),
    communityType: z.enum(['nonProfit', 'openSource', 'education']).optional(),
    // Always a role in Quire's answers (read unless set). The type keeps GitBook's MemberRoleOrGuest (null
    // for guests), as the v1 document first had it: a client of that document handles both.
    defaultRole: role.nullable(),
    defaultContent: z.object({ type: z.literal('site'), site: z.string() }).optional(),
    sso: z.boolean(),
    ai: z.boolean(),
    inviteLinks: z.boolean(),
    auditLogs: z.boolean(),
    plan: z.enum(['free_2024', 'plus_2024', 'pro_2024', 'enterprise_2024', 'community_2024', 'free', 'plus', 'pro', 'internal']),
    billing: organizationBilling.optional(),
    mergeRules: organizationMergeRules,
    urls: urls(['location', 'app'], ['logo']),
    trial: z.object({
      status: z.enum(['notapplicable', 'none', 'active', 'ended', 'expired']),
      count: z.number().int().min(0),
      endDate: timestamp.optional(),
      decision: z.literal('downgrade').optional(),
    }),
    customHostname: z.string().optional(),
    blocked: z.object({ source: z.enum(['backoffice', 'external', 'internal']).optional(), reason: z.string().min(1).max(255) }).optional(),
    internal_billingMigration: z
      .object({ deadline: timestamp.optional(), discountPercent: z.number().optional(), discountEndDate: timestamp.optional() })
      .optional(),
    permissions: permissions(
      'view',
      'access',
      'admin',
      'ownTeam',
      'createContent',
      'createOpenAPISpec',
      'ingestConversations',
      'viewBilling',
      'listMembers',
      'listTeams',
      'listIntegrations',
      'listInstallations',
      'installIntegration',
    ),
  })
  .meta({ id: 'Organization' });

/** spec "TeamMember role enum" (OpenAPI TeamMember): a user's standing in a team. */
export const teamMember = z.object({ role: z.enum(['owner', 'member']) }).meta({ id: 'TeamMember' });

/** spec "Team-member list item" (OpenAPI OrganizationTeamMember). */
export const organizationTeamMember = z
  .object({ organization: member, team: teamMember, permissions: permissions('view') })
  .meta({ id: 'OrganizationTeamMember' });

/** spec "Member-teams item": a team of the member, with their role in it. */
export const organizationMemberTeam = z.object({ team, member: teamMember }).meta({ id: 'OrganizationMemberTeam' });

/** spec "Member-spaces item" (OpenAPI MemberContentPermission): a space the member can access, with their role on it. */
export const memberContentPermission = z.object({ permission: role, space }).meta({ id: 'MemberContentPermission' });

/** spec "ping": the visitor claims token to attach to the user. */
export const organizationPing = z.object({ serviceVisitorClaims: z.string() }).meta({ id: 'OrganizationMemberPing' });

/**
 * spec "SAML provider" (OpenAPI OrganizationSAMLProvider). `ssoURL`, `entityID` and
 * `certificate` are left out until they are configured (a `pending` provider).
 */
export const samlProvider = z
  .object({
    object: z.literal('saml-provider'),
    id: z.string(),
    label: z.string().min(1).max(30),
    ssoURL: url.max(2048).optional(),
    entityID: z.string().max(1024).optional(),
    certificate: z.string().max(10000).optional(),
    defaultTeam: team.optional(),
    defaultRole: role.nullable(),
    createdAt: timestamp,
    status: z.enum(['active', 'pending']),
    service: z.object({ acsURL: url, startURL: url, entityID: z.string() }),
    urls: urls(['location']),
  })
  .meta({ id: 'OrganizationSAMLProvider' });

/** spec "SSO login info item" (OpenAPI OrganizationSSOProviderLogin). */
export const ssoProviderLogin = z.object({ id: z.string(), label: z.string().min(1).max(30), startURL: url }).meta({ id: 'OrganizationSSOProviderLogin' });

/** The answer of GET /v1/orgs/{organizationId}/sso: `{items}`, without paging. */
export const ssoProviderLogins = z.object({ items: z.array(ssoProviderLogin) }).meta({ id: 'OrganizationSSOProviderLogins' });

/**
 * The end of a SAML sign-in (Quire has no browser sessions): an API token for the signed-in
 * user, the user, the organization they signed in to and its address.
 */
export const samlLogin = z.object({ token: z.string(), user, organization, urls: urls(['location']) }).meta({ id: 'SAMLLogin' });
