import { presentUser } from '@quire/http';
import type { UserViewer } from '../kernel';
import type { MemberStanding } from './membership';
import { teamPermissionsOf, type TeamGrantView, type UserGrantView } from './grants';

/** A user's explicit role on a space or collection (OpenAPI UserPermission), as `viewer` may see the user (guests: no e-mail). */
export function presentUserPermission({ grant, user }: UserGrantView, { baseUrl, viewer }: { baseUrl: string; viewer: UserViewer }) {
  const { email, ...shown } = presentUser({ id: user.id, displayName: user.displayName, email: user.email, photoURL: user.photoUrl || undefined }, baseUrl);
  return { permission: grant.role, user: viewer.emails ? { ...shown, email } : shown };
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
