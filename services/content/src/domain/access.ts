import type { Role } from '@quire/runtime';
import type { SpaceDoc } from '../db/structure';
import type { ContentContext } from './context';

/**
 * The caller's standing on one space: the one place every space operation asks.
 * (Contract shared by the structure and the revisions code of this service.)
 */
export interface SpaceAccess {
  space: SpaceDoc;
  /** Effective role (design.md §4). Callers without any role never get a SpaceAccess: they get a 404. */
  role: Role;
  /** The caller's role in the space's organization (null = guest or not a member). */
  orgRole: Role | null;
}

/** Loads a space the caller may see; 404 when it is missing, deleted (unless asked for) or invisible to them. */
export async function loadSpaceAccess(
  _ctx: ContentContext,
  _userId: string,
  _spaceId: string,
  _options: { includeDeleted?: boolean } = {},
): Promise<SpaceAccess> {
  throw new Error('loadSpaceAccess: implemented with the spaces work');
}

/** 403 naming `action` unless the caller's effective role is at least `minimum`. */
export function requireSpaceRole(_access: SpaceAccess, _minimum: Role, _action: string): void {
  throw new Error('requireSpaceRole: implemented with the spaces work');
}
