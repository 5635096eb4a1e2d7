import { z } from 'zod';
import { permissions, role, timestamp, urls } from './common';

const mergeRule = z.object({ rule: z.literal('require_specific_reviewers'), users: z.array(z.string()) });

/** spec "Merge rules" (GitBook's `none` too): a space's own, or inherited from the organization. */
export const mergeRules = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('inherit') }),
    z.object({ type: z.literal('none') }),
    z.object({ type: z.literal('rules'), rules: z.array(mergeRule) }),
  ])
  .meta({ id: 'MergeRules' });

/** The repository a space syncs with (spec "Git info"; OpenAPI GitSyncState without its operation). */
export const gitSync = z
  .object({
    installationId: z.string(),
    installationProvider: z.string(),
    installationStatus: z.literal('active'),
    integration: z.string(),
    repoName: z.string(),
    url: z.string(),
    updatedAt: timestamp,
  })
  .meta({ id: 'GitSync' });

/**
 * spec "Space". `defaultLevel` is the level in force (a role; null only where the spec allows
 * it); `defaultLevelInherited` says whether the space follows its parent's level.
 */
export const space = z
  .object({
    object: z.literal('space'),
    id: z.string(),
    title: z.string().max(50),
    emoji: z.string().max(50),
    visibility: z.enum(['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private']),
    createdAt: timestamp,
    updatedAt: timestamp,
    deletedAt: timestamp.optional(),
    editMode: z.enum(['live', 'locked']).optional(),
    mergeRules,
    urls: urls(['location', 'app'], ['published', 'public', 'icon']),
    organization: z.string(),
    parent: z.string().optional(),
    language: z.string().optional(),
    gitSync: gitSync.optional(),
    visitorAuth: z.object({ backend: z.string() }).optional(),
    revision: z.string(),
    defaultLevel: role.nullable(),
    defaultLevelInherited: z.boolean(),
    comments: z.number().int().min(0),
    changeRequests: z.number().int().min(0),
    changeRequestsOpen: z.number().int().min(0),
    changeRequestsDraft: z.number().int().min(0),
    permissions: permissions(
      'view',
      'access',
      'admin',
      'viewInviteLinks',
      'edit',
      'triggerGitSync',
      'comment',
      'merge',
      'review',
      'installIntegration',
    ).optional(),
  })
  .meta({ id: 'Space' });

/** spec "Collection". */
export const collection = z
  .object({
    object: z.literal('collection'),
    id: z.string(),
    title: z.string(),
    description: z.string().optional(),
    organization: z.string(),
    parent: z.string().optional(),
    defaultLevel: role,
    defaultLevelInherited: z.boolean(),
    urls: urls(['location', 'app']),
    permissions: permissions('view', 'admin', 'viewInviteLinks', 'create'),
  })
  .meta({ id: 'Collection' });
