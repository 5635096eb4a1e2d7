import { ROLES, roleAtLeast, strongestRole, type Role } from '@quire/runtime';
import type { DefaultLevel } from '../kernel';

/** The caller's standing in an organization, as identity reports it. */
export interface Standing {
  /** False for non-members and disabled members: they see nothing of the organization. */
  member: boolean;
  /** Org role; null is a guest (member without an org-wide role). */
  orgRole: Role | null;
}

/** The weaker of two roles (null when either is null). */
export function weakestRole(a: Role | null, b: Role | null): Role | null {
  if (!a || !b) return null;
  return roleAtLeast(a, b) ? b : a;
}

/**
 * Resolves a chain of default levels, nearest first (the resource's own, then its parent
 * collection's, up to the root collection): the first level that is not 'inherit' wins;
 * a chain of only 'inherit' ends at the organization ('inherit' again).
 */
export function resolveDefaultLevel(levels: readonly DefaultLevel[]): DefaultLevel {
  for (const level of levels) if (level !== 'inherit') return level;
  return 'inherit';
}

/**
 * The default level in force on a resource, as Space and Collection objects show it
 * (`defaultLevel`): resolveDefaultLevel over its own level and its chain, nearest first.
 * An all-'inherit' chain gives each member their org role, which is exactly the level
 * 'admin' (min(org role, admin) = org role); null: nobody gets a base role, only grants.
 */
export function defaultLevelInForce(levels: readonly DefaultLevel[]): Role | null {
  const level = resolveDefaultLevel(levels);
  return level === 'inherit' ? 'admin' : (level ?? null);
}

/**
 * The effective role of a caller on a space or collection (design.md §4). The rule:
 *
 * 1. Non-members (and disabled members) have no role: the resource is invisible (404).
 * 2. Organization admins are admins of all the organization's content.
 * 3. Otherwise the base role comes from the resolved default level: 'inherit' at the
 *    root gives the org role; a role gives min(org role, level), so a default level never
 *    lifts a member above their org role; null gives nothing. Guests (org role null)
 *    get no base role at all.
 * 4. Explicit grants (to the user, or to one of their teams, on the resource or on any
 *    ancestor collection) are added: the result is the strongest of base and grants.
 *    A grant can lift a member above their org role: that is what inviting is for.
 */
export function resolveEffectiveRole(input: { standing: Standing; levels: readonly DefaultLevel[]; grants: readonly Role[] }): Role | null {
  const { standing, levels, grants } = input;
  if (!standing.member) return null;
  if (standing.orgRole === 'admin') return 'admin';
  const level = resolveDefaultLevel(levels);
  const base = level === 'inherit' ? standing.orgRole : weakestRole(standing.orgRole, level);
  return strongestRole(base, ...grants);
}

export interface SpacePermissions {
  view: boolean;
  access: boolean;
  admin: boolean;
  viewInviteLinks: boolean;
  edit: boolean;
  triggerGitSync: boolean;
  comment: boolean;
  merge: boolean;
  review: boolean;
  installIntegration: boolean;
}

/**
 * The minimum role of every space operation: what requireSpaceRole enforces and what the
 * `permissions` object shows are read from this one table.
 */
export const SPACE_ACTION_ROLES = {
  view: 'read',
  access: 'read',
  comment: 'comment',
  edit: 'edit',
  review: 'review',
  merge: 'review',
  triggerGitSync: 'edit',
  viewInviteLinks: 'admin',
  installIntegration: 'admin',
  admin: 'admin',
} as const satisfies Record<keyof SpacePermissions, Role>;

/** Each action of `table` allowed for `role`: the permissions object the checks agree with. */
function permissionsOf<P>(table: Record<keyof P, Role>, role: Role | null): P {
  return Object.fromEntries(Object.entries<Role>(table).map(([action, minimum]) => [action, roleAtLeast(role, minimum)])) as P;
}

export function spacePermissions(role: Role | null): SpacePermissions {
  return permissionsOf<SpacePermissions>(SPACE_ACTION_ROLES, role);
}

export interface CollectionPermissions {
  view: boolean;
  admin: boolean;
  viewInviteLinks: boolean;
  create: boolean;
}

export const COLLECTION_ACTION_ROLES = {
  view: 'read',
  create: 'create',
  viewInviteLinks: 'admin',
  admin: 'admin',
} as const satisfies Record<keyof CollectionPermissions, Role>;

export function collectionPermissions(role: Role | null): CollectionPermissions {
  return permissionsOf<CollectionPermissions>(COLLECTION_ACTION_ROLES, role);
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/**
 * The effective role on a space: resolveEffectiveRole over the space's own level and its
 * collection chain. A space with visibility `in-collection` is open to whoever can access
 * its parent collection, so the role on that collection also counts.
 */
export function resolveSpaceRole(input: {
  standing: Standing;
  spaceLevel: DefaultLevel;
  visibility: string;
  /** Default levels of the parent collection, then its parent…, nearest first. */
  chainLevels: readonly DefaultLevel[];
  /** Grants matching the caller on the space or any collection of its chain. */
  grants: readonly Role[];
}): Role | null {
  const { standing, spaceLevel, visibility, chainLevels, grants } = input;
  const own = resolveEffectiveRole({ standing, levels: [spaceLevel, ...chainLevels], grants });
  if (visibility !== 'in-collection' || chainLevels.length === 0) return own;
  return strongestRole(own, resolveEffectiveRole({ standing, levels: chainLevels, grants }));
}
