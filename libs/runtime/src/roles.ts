import { identity } from '@quire/proto';

/** The role enum of the API, weakest first (design.md §4). null is a guest. */
export const ROLES = ['read', 'comment', 'edit', 'review', 'create', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const rank = (role: Role | null | undefined): number => (role ? ROLES.indexOf(role) + 1 : 0);

/** True when `role` grants at least `needed`. A guest (null) holds no role. */
export function roleAtLeast(role: Role | null | undefined, needed: Role): boolean {
  return rank(role) >= rank(needed);
}

/** The strongest of several roles (null when none is given). */
export function strongestRole(...roles: Array<Role | null | undefined>): Role | null {
  return roles.reduce<Role | null>((best, role) => (rank(role) > rank(best) ? (role ?? null) : best), null);
}

const TO_PROTO: Record<Role, identity.Role> = {
  read: identity.Role.ROLE_READ,
  comment: identity.Role.ROLE_COMMENT,
  edit: identity.Role.ROLE_EDIT,
  review: identity.Role.ROLE_REVIEW,
  create: identity.Role.ROLE_CREATE,
  admin: identity.Role.ROLE_ADMIN,
};

export function roleToProto(role: Role | null | undefined): identity.Role {
  return role ? TO_PROTO[role] : identity.Role.ROLE_UNSPECIFIED;
}

export function roleFromProto(role: identity.Role): Role | null {
  const found = (Object.keys(TO_PROTO) as Role[]).find((name) => TO_PROTO[name] === role);
  return found ?? null;
}
