import { apiUrl } from '@quire/http';
import type { MemberView } from '../domain/members';
import type { SamlProviderView } from '../domain/saml';
import { providerStatus, serviceEndpoints } from '../domain/saml';
import type { TeamMemberView, TeamView } from '../domain/teams';
import { presentUser } from './organization-presenter';

/** The Member object (spec "Member"); `email: false` leaves the e-mail out of its user. */
export function presentMember(view: MemberView, options: { baseUrl: string; email?: boolean }) {
  const { membership, user, counts } = view;
  return {
    object: 'member' as const,
    id: membership.userId,
    role: membership.role,
    user: presentUser(user, options),
    disabled: membership.disabled,
    joinedAt: membership.joinedAt.toISOString(),
    ...(membership.lastSeenAt ? { lastSeenAt: membership.lastSeenAt.toISOString() } : {}),
    sso: membership.sso,
    spaces: counts.spaces,
    teams: counts.teams,
    sites: counts.sites,
  };
}

/** The Team object (spec "Team and TeamMember"). */
export function presentTeam(view: TeamView) {
  return {
    object: 'team' as const,
    id: view.team._id,
    title: view.team.title,
    members: view.members,
    spaces: view.spaces,
    createdAt: view.team.createdAt.toISOString(),
    permissions: view.permissions,
  };
}

/** A team-member list item (spec "Team and TeamMember"). */
export function presentTeamMember(view: TeamMemberView, { baseUrl }: { baseUrl: string }) {
  return { organization: presentMember(view.member, { baseUrl, email: view.email }), team: { role: view.role }, permissions: { view: view.view } };
}

/** The SAML provider object; only the identity provider's public certificate is shown. */
export function presentSamlProvider(view: SamlProviderView, { baseUrl }: { baseUrl: string }) {
  const { provider, defaultTeam } = view;
  return {
    object: 'saml-provider' as const,
    id: provider._id,
    label: provider.label,
    ...(provider.ssoURL ? { ssoURL: provider.ssoURL } : {}),
    ...(provider.entityID ? { entityID: provider.entityID } : {}),
    ...(provider.certificate ? { certificate: provider.certificate } : {}),
    ...(defaultTeam ? { defaultTeam: presentTeam(defaultTeam) } : {}),
    defaultRole: provider.defaultRole,
    createdAt: provider.createdAt.toISOString(),
    status: providerStatus(provider),
    service: serviceEndpoints(baseUrl, provider._id),
    urls: { location: apiUrl(baseUrl, `/v1/orgs/${provider.organizationId}/saml/${provider._id}`) },
  };
}
