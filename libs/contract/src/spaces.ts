import { z } from 'zod';
import { permissions, role, timestamp, urls } from './common';

const mergeRule = z.object({ rule: z.literal('require_specific_reviewers'), users: z.array(z.string()) });

/** spec "Merge rules" (GitBook's `none` too): a space's own, or inherited from the organization. */
export const mergeRules = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('inherit') }),
    z.object({ type: z.literal('none') }),
    // requireNoNewBrokenLinks: Quire's "no new broken links" rule (libs/http schemas), shown when on.
    z.object({ type: z.literal('rules'), rules: z.array(mergeRule), requireNoNewBrokenLinks: z.boolean().optional() }),
  ])
  .meta({ id: 'MergeRules' });

/**
 * The repository a space syncs with (spec "Git info"; OpenAPI GitSyncState without its operation).
 * `installationProvider` names the Git host (OpenAPI GitSyncProvider: Quire syncs with these two).
 */
export const gitSync = z
  .object({
    installationId: z.string(),
    installationProvider: z.enum(['github', 'gitlab']),
    installationStatus: z.literal('active'),
    integration: z.string(),
    repoName: z.string(),
    url: z.string(),
    updatedAt: timestamp,
  })
  .meta({ id: 'GitSync' });

/** spec "Space" `language` (OpenAPI TranslationLanguage): the language codes a space may be written in (translations use them too). */
export const LANGUAGES = [
  'en',
  'fr',
  'de',
  'es',
  'it',
  'pt',
  'pt-br',
  'ru',
  'ja',
  'zh',
  'zh-tw',
  'yue',
  'ko',
  'ar',
  'hi',
  'nl',
  'pl',
  'tr',
  'sv',
  'no',
  'da',
  'fi',
  'el',
  'cs',
  'hu',
  'ro',
  'th',
  'vi',
  'id',
  'ms',
  'he',
  'uk',
  'sk',
  'bg',
  'hr',
  'lt',
  'lv',
  'et',
  'sl',
] as const;
export const language = z.enum(LANGUAGES);

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
    language: language.optional(),
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

/**
 * spec "Collection". `defaultLevel` is the level in force, null when nobody gets a base role
 * (OpenAPI DefaultLevel allows it; the spec's Collection says a role); `defaultLevelInherited`
 * as on Space.
 */
export const collection = z
  .object({
    object: z.literal('collection'),
    id: z.string(),
    title: z.string().max(50),
    description: z.string().max(100).optional(),
    organization: z.string(),
    parent: z.string().optional(),
    defaultLevel: role.nullable(),
    defaultLevelInherited: z.boolean(),
    urls: urls(['location', 'app']),
    permissions: permissions('view', 'admin', 'viewInviteLinks', 'create'),
  })
  .meta({ id: 'Collection' });
