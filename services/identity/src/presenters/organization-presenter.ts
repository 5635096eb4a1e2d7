import { apiUrl, presentUser as presentUserObject } from '@quire/http';
import { DEFAULT_ORGANIZATION_ROLE, type MembershipDoc, type OrganizationDoc, type UserDoc } from '../db/models';
import { organizationPermissions } from '../domain/permissions';

/** The User object; without `email` (optional in the OpenAPI User) for callers who may not see it. */
export function presentUser(user: UserDoc, options: { baseUrl: string; email?: boolean }) {
  const { baseUrl } = options;
  const presented = presentUserObject({ id: user._id, displayName: user.displayName, email: user.email, photoURL: user.photoURL }, baseUrl);
  if (options.email !== false) return presented;
  const { email: _hidden, ...withoutEmail } = presented;
  return withoutEmail;
}

/** The Organization object as the member `membership` sees it. */
export function presentOrganization(
  organization: OrganizationDoc,
  { membership, baseUrl, ownsTeam = false }: { membership: MembershipDoc | null; baseUrl: string; ownsTeam?: boolean },
) {
  const permissions = organizationPermissions(membership, ownsTeam);
  return {
    object: 'organization' as const,
    id: organization._id,
    title: organization.title,
    createdAt: organization.createdAt.toISOString(),
    emailDomains: organization.emailDomains,
    ...(organization.hostname ? { hostname: organization.hostname } : {}),
    type: organization.type,
    ...(organization.useCase ? { useCase: organization.useCase } : {}),
    ...(organization.communityType ? { communityType: organization.communityType } : {}),
    defaultRole: organization.defaultRole ?? DEFAULT_ORGANIZATION_ROLE,
    ...(organization.defaultContent ? { defaultContent: organization.defaultContent } : {}),
    sso: organization.sso,
    ai: organization.ai,
    inviteLinks: organization.inviteLinks,
    auditLogs: false,
    plan: organization.plan,
    // Billing details are for those allowed to see them (OpenAPI: "only available for org members").
    ...(permissions.viewBilling ? { billing: freeBilling() } : {}),
    mergeRules: organization.mergeRules,
    urls: {
      location: apiUrl(baseUrl, `/v1/orgs/${organization._id}`),
      app: apiUrl(baseUrl, `/o/${organization._id}`),
      ...(organization.logo ? { logo: organization.logo } : {}),
    },
    trial: { status: 'notapplicable' as const, count: 0 },
    permissions,
  };
}

/** Quire does not bill: every organization is on the free plan with nothing owed. */
function freeBilling() {
  const zero = { monthly: 0, yearly: 0 };
  return {
    interval: 'monthly' as const,
    endDate: null,
    hasPaymentFailed: false,
    canCheckout: false,
    isScheduledToCancel: false,
    canChangeInterval: false,
    // SAML needs no paid plan here: every organization may configure it.
    canUseSAML: true,
    creditsBundle: null,
    aiCreditAlertThreshold: null,
    pricing: {
      members: { plus_2024: zero, pro_2024: zero },
      sites: { premium: zero, ultimate: zero },
    },
    usageAddons: {},
  };
}
