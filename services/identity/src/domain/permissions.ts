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
    // Ingesting conversations feeds every member's insights: admins (and installation tokens with
    // the conversations:ingest scope, which insights checks) only.
    ingestConversations: admin,
    viewBilling: admin,
    listMembers: isMember,
    listTeams: isMember,
    listIntegrations: isMember,
    listInstallations: admin,
    installIntegration: admin,
  };
}

type ActiveMembership = Pick<MembershipDoc, 'role' | 'disabled'> | null;

/** Managing members, teams and SAML providers of the organization. */
export function canAdministrate(membership: ActiveMembership): boolean {
  return organizationPermissions(membership).admin;
}

export interface TeamPermissions {
  /** Manage the team: rename it, add, remove and promote its members. */
  admin: boolean;
  /** See the team and list its members. */
  view: boolean;
}

/**
 * What a member may do with a team: org admins and the team's owners manage it; whoever may
 * list the organization's teams, and the team's own members (guests included), see it.
 */
export function teamPermissions(membership: ActiveMembership, teamRole: 'owner' | 'member' | null): TeamPermissions {
  const perms = organizationPermissions(membership);
  const inTeam = perms.view && teamRole !== null;
  return { admin: perms.admin || (perms.view && teamRole === 'owner'), view: perms.listTeams || inTeam };
}

/** Whether the caller may see another member (always themselves). */
export function canViewMember(membership: ActiveMembership, self: boolean): boolean {
  const perms = organizationPermissions(membership);
  return perms.view && (self || perms.listMembers);
}

/** A member's spaces reveal what they can read: for admins and for the member themselves. */
export function canViewMemberSpaces(membership: ActiveMembership, self: boolean): boolean {
  const perms = organizationPermissions(membership);
  return perms.view && (self || perms.admin);
}

/** Members may leave on their own; everyone else is removed by an admin. */
export function canRemoveMember(membership: ActiveMembership, self: boolean): boolean {
  const perms = organizationPermissions(membership);
  return perms.view && (self || perms.admin);
}
