import { z } from 'zod';
import { document, list, timestamp, url, urls } from './common';

/*
 * The content of a space or of a change request (spec "Revision", "Page", "File", "Content
 * link item"; GitBook's Revision, RevisionPageDocument, RevisionFile where the spec is silent).
 */

/** Where a page or a file came from in a Git repository (GitBook GitSyncBlob). */
export const gitSyncBlob = z.object({ oid: z.string(), path: z.string() }).meta({ id: 'GitSyncBlob' });

/** Variables of a revision or a page: name → value (Quire keeps every value as a string). */
export const contentVariables = z.record(z.string(), z.string()).meta({ id: 'Variables' });

/** spec "Content reference" forms: a file, a page, an OpenAPI specification, or (GitBook's ContentRefURL) an address. */
export const contentRefFile = z.object({ kind: z.literal('file'), file: z.string(), space: z.string().optional() }).meta({ id: 'ContentRefFile' });
export const contentRefPage = z.object({ kind: z.literal('page'), page: z.string(), space: z.string().optional() }).meta({ id: 'ContentRefPage' });
export const contentRefOpenApi = z.object({ kind: z.literal('openapi'), spec: z.string() }).meta({ id: 'ContentRefOpenAPI' });
export const contentRefUrl = z.object({ kind: z.literal('url'), url: z.string() }).meta({ id: 'ContentRefURL' });

/**
 * spec "Page" `computed` (GitBook ComputedContentSourceDocumentOpenAPI): a page generated from
 * an OpenAPI specification of the revision, by tag (`operations`, `page` = the tag) or its models.
 */
export const computedContentSource = z
  .object({
    type: z.literal('builtin:openapi'),
    dependencies: z.object({ spec: z.object({ ref: contentRefOpenApi }) }),
    props: z.union([z.object({ doc: z.literal('models') }), z.object({ doc: z.literal('operations'), page: z.string().min(1) })]),
  })
  .meta({ id: 'ComputedContentSourceDocument' });

/** spec "Page" `layout` (GitBook RevisionPageLayoutOptions, which also requires coverMask, tags, actions and anchors). */
export const pageLayout = z
  .object({
    width: z.enum(['default', 'wide']),
    cover: z.boolean(),
    coverSize: z.enum(['hero', 'full', 'background']),
    coverMask: z.enum(['none', 'radial']),
    title: z.boolean(),
    description: z.boolean(),
    tableOfContents: z.boolean(),
    outline: z.boolean(),
    pagination: z.boolean(),
    metadata: z.boolean(),
    tags: z.boolean(),
    actions: z.boolean(),
    anchors: z.boolean(),
  })
  .meta({ id: 'RevisionPageLayoutOptions' });
export type PageLayout = z.infer<typeof pageLayout>;

/** A page's layout until it says otherwise: every part shown, the default width, no cover. */
export const DEFAULT_PAGE_LAYOUT: Readonly<PageLayout> = Object.freeze({
  width: 'default',
  cover: false,
  coverSize: 'hero',
  coverMask: 'none',
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
  tags: true,
  actions: true,
  anchors: true,
});

/** An image of a page's cover: a file of the revision or an address. */
const coverImage = z.discriminatedUnion('kind', [contentRefFile, contentRefUrl]);

/**
 * spec "Page" (GitBook RevisionPageDocument), with its sub-pages. The body is `markdown`, or
 * `document` when the read asks for `format=document`. A stored page names its body
 * (`documentId`); a generated one has `computed` and `computedSeed` instead.
 */
export const revisionPage = z
  .object({
    id: z.string(),
    title: z.string(),
    emoji: z.string().optional(),
    icon: z.string().max(50).optional(),
    createdAt: timestamp,
    updatedAt: timestamp,
    kind: z.literal('sheet'),
    type: z.literal('document'),
    markdown: z.string().optional(),
    document: document.optional(),
    documentId: z.string().optional(),
    urls: urls(['app']),
    slug: z.string(),
    path: z.string(),
    description: z.string().optional(),
    get pages(): z.ZodArray<typeof revisionPage> {
      return z.array(revisionPage);
    },
    git: gitSyncBlob.optional(),
    layout: pageLayout,
    cover: z.object({ ref: coverImage.optional(), refDark: coverImage.optional(), yPos: z.number(), height: z.number().optional() }).optional(),
    tags: z.array(z.never()),
    hidden: z.boolean(),
    noIndex: z.boolean(),
    noRobotsIndex: z.boolean(),
    variables: contentVariables,
    metaLinks: z.object({ canonical: contentRefPage.optional(), alternates: z.array(contentRefPage).optional() }).optional(),
    computed: computedContentSource.optional(),
    computedSeed: z.string().optional(),
  })
  .meta({ id: 'RevisionPageDocument' });

/** The page tree of a revision: GET …/content/pages. */
export const revisionPages = z.object({ pages: z.array(revisionPage) }).meta({ id: 'RevisionPages' });

/** spec "File" (GitBook RevisionFile): `downloadURL` is a signed address that expires. */
export const revisionFile = z
  .object({
    id: z.string(),
    name: z.string(),
    contentType: z.string(),
    downloadURL: url,
    size: z.number().int().min(0),
    dimensions: z.object({ width: z.number(), height: z.number() }).optional(),
    git: gitSyncBlob.optional(),
  })
  .meta({ id: 'RevisionFile' });

/** spec "Revision" `git`: the commit a Git import made the revision from; `createdByGitBook` is GitBook's name of `createdByService`. */
export const revisionGitCommit = z
  .object({
    oid: z.string(),
    message: z.string(),
    createdByService: z.boolean(),
    createdByGitBook: z.boolean(),
    url: z.string().optional(),
    ref: z.string().optional(),
  })
  .meta({ id: 'GitSyncCommit' });

/** spec "Revision" (GitBook RevisionTypeEdits): the whole content of a space or a change request at one point. */
export const revision = z
  .object({
    object: z.literal('revision'),
    id: z.string(),
    parents: z.array(z.string()),
    pages: z.array(revisionPage),
    files: z.array(revisionFile),
    reusableContents: z.array(z.object({ id: z.string(), title: z.string(), git: gitSyncBlob.optional() })),
    tags: z.array(z.never()),
    variables: contentVariables,
    createdAt: timestamp,
    git: revisionGitCommit.optional(),
    urls: urls(['app'], ['published', 'public']),
    type: z.literal('edits'),
  })
  .meta({ id: 'Revision' });

/** spec "Content link item" (links): one distinct target, with every page of the revision linking to it. */
export const contentLink = z
  .object({
    status: z.enum(['ok', 'broken', 'in-app']),
    relation: z.literal('reference'),
    targetReference: z.discriminatedUnion('kind', [contentRefPage.extend({ space: z.string() }), contentRefFile, contentRefUrl]),
    locationReferences: z.array(contentRefPage.extend({ space: z.string() })),
  })
  .meta({ id: 'ContentLink' });

/** spec "Content link item": a links list has `stats` (distinct targets; broken ones; broken ones the open change requests add). */
export const contentLinks = list(contentLink)
  .extend({
    stats: z.object({
      total: z.number().int().min(0),
      broken: z.object({ total: z.number().int().min(0), changeRequest: z.number().int().min(0) }),
    }),
  })
  .meta({ id: 'ContentLinks' });

/** spec "Content link item" (backlinks): the page of a revision of a space that links to the target. */
export const contentBacklink = z
  .object({
    kind: z.literal('page'),
    organization: z.string(),
    space: z.string(),
    versionContext: z.object({ type: z.literal('revision'), revision: z.string() }),
    page: z.string(),
  })
  .meta({ id: 'ContentBacklink' });
