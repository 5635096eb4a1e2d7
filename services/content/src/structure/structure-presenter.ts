import type { gitSync } from '@quire/contract';
import { apiUrl } from '@quire/http';
import type { z } from 'zod';
import type { Role } from '@quire/runtime';
import { collectionPermissions, spacePermissions } from '../access';
import type { CollectionDoc, SpaceDoc } from '../kernel';

/** The repository a space syncs with, as the Space object shows it (spec "Git info"; the git module presents it). */
export type SpaceGitSync = z.output<typeof gitSync>;

/**
 * `defaultLevel` shows the level in force (the stored 'inherit' resolved over the collection
 * chain; at the root it is the org role, i.e. 'admin'); `defaultLevelInherited` says whether
 * the stored value is 'inherit'. The caller resolves it where it computed the role.
 */
interface LevelPresentation {
  /** The default level in force on the resource (access: spaceLevelFor, collectionLevelFor…). */
  defaultLevel: Role | null;
}

export interface SpacePresentation extends LevelPresentation {
  /** The viewer's role on the space (null: none, e.g. another service asking without a viewer). */
  role: Role | null;
  baseUrl: string;
  /** The published address, when the request opened the space through a share link. */
  published?: string;
  /** The space's Git sync state when it has one (loaded in one query for a list). */
  gitSync?: SpaceGitSync;
}

/** The Space object (spec "Space", OpenAPI Space) for a viewer holding `role` on it. */
export function presentSpace(space: SpaceDoc, { role, baseUrl, published, gitSync, defaultLevel }: SpacePresentation) {
  return {
    object: 'space' as const,
    id: space._id,
    title: space.title,
    emoji: space.emoji,
    visibility: space.visibility,
    createdAt: new Date(space.createdAt).toISOString(),
    updatedAt: new Date(space.updatedAt).toISOString(),
    ...(space.deletedAt ? { deletedAt: new Date(space.deletedAt).toISOString() } : {}),
    editMode: space.editMode,
    mergeRules: presentMergeRules(space),
    urls: {
      location: apiUrl(baseUrl, `/v1/spaces/${space._id}`),
      app: apiUrl(baseUrl, `/s/${space._id}`),
      ...(published ? { published } : {}),
    },
    organization: space.organizationId,
    ...(space.parentId ? { parent: space.parentId } : {}),
    ...(space.language ? { language: space.language } : {}),
    ...(gitSync ? { gitSync } : {}),
    revision: space.revisionId,
    defaultLevel,
    defaultLevelInherited: space.defaultLevel === 'inherit',
    comments: space.comments ?? 0,
    changeRequests: space.changeRequests ?? 0,
    changeRequestsOpen: space.changeRequestsOpen ?? 0,
    changeRequestsDraft: space.changeRequestsDraft ?? 0,
    permissions: spacePermissions(role),
  };
}
export type SpaceObject = ReturnType<typeof presentSpace>;

function presentMergeRules(space: SpaceDoc) {
  const rules = space.mergeRules;
  if (!rules || rules.type === 'inherit') return { type: 'inherit' as const };
  if (rules.type === 'none') return { type: 'none' as const };
  return {
    type: 'rules' as const,
    rules: rules.rules.map((r) => ({ rule: r.rule, users: [...r.users] })),
    ...(rules.requireNoNewBrokenLinks ? { requireNoNewBrokenLinks: true } : {}),
  };
}

/** The Collection object (spec "Collection", OpenAPI Collection) for a viewer holding `role` on it. */
export function presentCollection(collection: CollectionDoc, { role, baseUrl, defaultLevel }: LevelPresentation & { role: Role | null; baseUrl: string }) {
  return {
    object: 'collection' as const,
    id: collection._id,
    title: collection.title,
    ...(collection.description ? { description: collection.description } : {}),
    organization: collection.organizationId,
    ...(collection.parentId ? { parent: collection.parentId } : {}),
    defaultLevel,
    defaultLevelInherited: collection.defaultLevel === 'inherit',
    urls: {
      location: apiUrl(baseUrl, `/v1/collections/${collection._id}`),
      app: apiUrl(baseUrl, `/c/${collection._id}`),
    },
    permissions: collectionPermissions(role),
  };
}
