import { presentUser } from '@quire/http';
import type { MemberStanding } from './membership';
import { teamPermissionsOf, type TeamGrantView, type UserGrantView } from './grants';

/** A user's explicit role on a space or collection (OpenAPI UserPermission). */
export function presentUserPermission({ grant, user }: UserGrantView, { baseUrl }: { baseUrl: string }) {
  return {
    permission: grant.role,
    user: presentUser({ id: user.id, displayName: user.displayName, email: user.email, photoURL: user.photoUrl || undefined }, baseUrl),
  };
}

/** A team's explicit role on a space or collection (OpenAPI TeamPermission), with what `caller` may do with the team. */
export function presentTeamPermission({ grant, team, spaces }: TeamGrantView, { caller }: { caller: MemberStanding }) {
  return {
    permission: grant.role,
    team: {
      object: 'team' as const,
      id: team.id,
      title: team.title,
      members: team.members,
      spaces,
      createdAt: team.createdAt.toISOString(),
      permissions: teamPermissionsOf(caller, team.id),
    },
  };
}
