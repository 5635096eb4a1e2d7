import { apiUrl } from '@quire/http';
import type { Role } from '@quire/runtime';
import type { CollectionDoc, SpaceDoc } from '../db/structure';
import { collectionPermissions, spacePermissions } from '../domain/roles';

/** The Space object (spec "Space", OpenAPI Space) for a viewer holding `role` on it. */
export function presentSpace(space: SpaceDoc, role: Role | null, baseUrl: string, published?: string) {
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
