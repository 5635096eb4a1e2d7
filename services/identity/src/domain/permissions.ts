import { roleAtLeast } from '@quire/runtime';
import type { MembershipDoc } from '../db/models';

export interface OrganizationPermissions {
  view: boolean;
  access: boolean;
  admin: boolean;
  ownTeam: boolean;
  createContent: boolean;
  createOpenAPISpec: boolean;
  ingestConversations: boolean;
  viewBilling: boolean;
  listMembers: boolean;
  listTeams: boolean;
  listIntegrations: boolean;
  listInstallations: boolean;
  installIntegration: boolean;
}

/**
 * What a member may do in their organization, from their role alone (design.md §4).
 * Guests (role null) see the organization but none of its directories.
 * `ownsTeam` is whether they own at least one team of it.
 */
export function organizationPermissions(membership: Pick<MembershipDoc, 'role' | 'disabled'> | null, ownsTeam = false): OrganizationPermissions {
  const active = membership !== null && !membership.disabled;
  const role = active ? membership.role : null;
  const isMember = active && role !== null;
  const admin = roleAtLeast(role, 'admin');
  const creator = roleAtLeast(role, 'create');
  return {
    view: active,
    access: active,
    admin,
    ownTeam: active && ownsTeam,
    createContent: creator,
    createOpenAPISpec: creator,
    ingestConversations: creator,
    viewBilling: admin,
    listMembers: isMember,
    listTeams: isMember,
    listIntegrations: isMember,
    listInstallations: admin,
    installIntegration: admin,
  };
}
