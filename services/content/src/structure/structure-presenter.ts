import { apiUrl } from '@quire/http';
import type { Role } from '@quire/runtime';
import type { GitSyncSummary } from '../db/git';
import type { CollectionDoc, SpaceDoc } from '../db/structure';
import { collectionPermissions, spacePermissions } from '../domain/roles';

/** The repository a space syncs with (spec "Git info"; OpenAPI GitSyncState without its operation). */
export function presentGitSync(state: GitSyncSummary) {
  return {
    installationId: state.installationId,
    installationProvider: state.provider,
    installationStatus: 'active' as const,
    integration: state.provider,
    repoName: state.repoName,
    url: state.treeUrl ?? state.url,
    updatedAt: new Date(state.updatedAt).toISOString(),
  };
}

/**
 * The Space object (spec "Space", OpenAPI Space) for a viewer holding `role` on it;
 * `gitSync` is the space's Git sync state when it has one (loaded in one query for a list).
 */
export function presentSpace(space: SpaceDoc, role: Role | null, baseUrl: string, published?: string, gitSync?: GitSyncSummary | null) {
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
    ...(gitSync ? { gitSync: presentGitSync(gitSync) } : {}),
    revision: space.revisionId,
    defaultLevel: space.defaultLevel ?? null,
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
  return { type: 'rules' as const, rules: rules.rules.map((r) => ({ rule: r.rule, users: [...r.users] })) };
}

/** The Collection object (spec "Collection", OpenAPI Collection). */
export function presentCollection(collection: CollectionDoc, role: Role | null, baseUrl: string) {
  return {
    object: 'collection' as const,
    id: collection._id,
    title: collection.title,
    ...(collection.description ? { description: collection.description } : {}),
    organization: collection.organizationId,
    ...(collection.parentId ? { parent: collection.parentId } : {}),
    defaultLevel: collection.defaultLevel ?? null,
    urls: {
      location: apiUrl(baseUrl, `/v1/collections/${collection._id}`),
      app: apiUrl(baseUrl, `/c/${collection._id}`),
    },
    permissions: collectionPermissions(role),
  };
}
