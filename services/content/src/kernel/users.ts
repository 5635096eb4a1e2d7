import { clientsOf, presentUser } from '@quire/http';
import type { ContentContext } from './context';

/** A user as the API shows them wherever one appears (author, reviewer, reacting user…). */
export type PresentedUser = ReturnType<typeof presentUser>;

/** What the caller may see of the users a response embeds: guests see no e-mails (as identity answers them). */
export interface UserViewer {
  emails: boolean;
}

/** The viewer a caller with this role in the organization is: members with a role see e-mails, guests do not. */
export const viewerWithOrgRole = (orgRole: string | null): UserViewer => ({ emails: orgRole !== null });

/**
 * The users a response shows, by id, with ONE identity.BatchGetUsers call (unknown users
 * get a placeholder), as `viewer` may see them. Change requests and comments load them before
 * presenting a page.
 */
export async function loadUsers(ctx: ContentContext, ids: Iterable<string>, viewer: UserViewer): Promise<Map<string, PresentedUser>> {
  const wanted = [...new Set([...ids].filter(Boolean))];
  const users = new Map<string, PresentedUser>();
  if (wanted.length > 0) {
    const { users: found } = await clientsOf(ctx).identity.batchGetUsers({ ids: wanted });
    for (const user of found)
      users.set(
        user.id,
        presentUser({ id: user.id, displayName: user.displayName, email: user.email, photoURL: user.photoUrl || undefined }, ctx.config.PUBLIC_BASE_URL),
      );
  }
  for (const id of wanted) if (!users.has(id)) users.set(id, presentUser({ id, displayName: 'Unknown user', email: '' }, ctx.config.PUBLIC_BASE_URL));
  if (!viewer.emails) for (const [id, { email: _hidden, ...user }] of users) users.set(id, user as PresentedUser);
  return users;
}
