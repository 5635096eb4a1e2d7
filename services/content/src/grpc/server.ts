import { zodMessage } from '@quire/http';
import type { content } from '@quire/proto';
import { GrpcError, grpcStatus, type Role, checkBatch, MAX_GRPC_BATCH } from '@quire/runtime';
import { z } from 'zod';
import {
  countSpaces,
  getStandings,
  isRole,
  loadOrgView,
  nonMember,
  spaceLevelIn,
  spaceRoleIn,
  type MemberStanding,
  type OrgView,
  type SpaceCountSubject,
} from '../access';
import { loadGitSyncSummaries, presentGitSync, type GitSyncSummary } from '../git';
import type { ContentContext, SpaceDoc } from '../kernel';
import {
  findSpaceRevision,
  loadRevision,
  pageFlag,
  pageLayoutOf,
  readSpaceContent,
  writeSpacePages,
  writeSpacePagesRequest,
  type SpaceContent,
} from '../revisions';
import { searchQuery, searchRevision, sectionTitle, type PageHit } from '../search';
import { createSpaceForService, findCachedSpaces, findSpaces, listVisibleSpaces, presentSpace, serviceSpaceRequest } from '../structure';

function orgRoleOf(name: string): Role | null {
  if (!name) return null;
  if (!isRole(name)) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, `org_role: unknown role ${name}`);
  return name;
}

/** A request checked against its schema: INVALID_ARGUMENT naming the first bad fields. */
function parseRequest<S extends z.ZodType>(schema: S, request: unknown): z.infer<S> {
  const result = schema.safeParse(request);
  if (!result.success) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, zodMessage(result.error, 'body'));
  return result.data;
}

/**
 * A revision's pages as GetSpaceContent answers them: pre-order, with their bodies (none for
 * computed pages), but for those in `kept` (body_kept: the caller holds them).
 */
function toContentPages({ revision, pageBodies }: SpaceContent, kept: ReadonlySet<string> = new Set()): content.ContentPage[] {
  return revision.pages.map((page) => ({
    id: page.id,
    parentId: page.parent ?? '',
    title: page.title,
    slug: page.slug,
    emoji: page.emoji,
    description: page.description,
    hidden: page.hidden,
    body: kept.has(page.id) ? '' : (pageBodies.get(page.id) ?? ''),
    bodyKept: kept.has(page.id),
    bodyHash: page.bodyHash,
    kind: page.computed ? 'computed' : 'document',
    noIndex: pageFlag(page, 'noIndex'),
    noRobotsIndex: pageFlag(page, 'noRobotsIndex'),
    layout: pageLayoutOf(page),
    updateTime: page.updatedAt,
    cover: page.cover && {
      fileId: page.cover.ref.kind === 'file' ? page.cover.ref.file : '',
      url: page.cover.ref.kind === 'url' ? page.cover.ref.url : '',
      yPos: page.cover.yPos,
      darkFileId: page.cover.refDark?.kind === 'file' ? page.cover.refDark.file : '',
      darkUrl: page.cover.refDark?.kind === 'url' ? page.cover.refDark.url : '',
    },
  }));
}

/**
 * The pages of `read` whose body the caller holds from `knownRevisionId` (GetSpaceContent's
 * known_revision_id): the same page with the same stored body there, and no expression whose
 * answer could differ. None when that revision is not one of the space's.
 */
async function keptBodies(ctx: ContentContext, read: SpaceContent, knownRevisionId: string): Promise<Set<string>> {
  const kept = new Set<string>();
  if (!knownRevisionId) return kept;
  const known = await loadRevision(ctx, knownRevisionId).catch(() => undefined);
  if (!known || known.spaceId !== read.space._id) return kept;
  const knownHashes = new Map(known.pages.map((page) => [page.id, page.bodyHash]));
  for (const page of read.revision.pages) {
    if (!page.computed && !read.evaluatedPages.has(page.id) && knownHashes.get(page.id) === page.bodyHash) kept.add(page.id);
  }
  return kept;
}

/** A revision's files as GetSpaceContent answers them: what they are, not their bytes. */
function toContentFiles({ revision }: SpaceContent): content.ContentFile[] {
  return revision.files.map((file) => ({ id: file.id, name: file.name, contentType: file.contentType, size: file.size }));
}

/** SearchSpaceContent's request: the REST search's rule for the query; a limit of 1 to 50 (0: the default). */
const searchSpaceContentRequest = z.object({
  spaceId: z.string().min(1),
  revisionId: z.string(),
  query: searchQuery.shape.query,
  limit: z
    .number()
    .int()
    .min(0)
    .max(50)
    .transform((limit) => limit || 10),
});

/** A ranked page as SearchSpaceContent answers it: the REST search's path, titles and excerpts of its sections. */
function toSearchHit(hit: PageHit): content.SearchHit {
  return {
    pageId: hit.page.id,
    title: hit.page.title,
    path: hit.page.path,
    description: hit.page.description,
    sections: hit.sections.map(({ section, body }) => ({
      anchor: section.anchor ?? '',
      title: sectionTitle(hit, section),
      body,
    })),
  };
}

/**
 * ContentService over gRPC: spaces for other services to embed, list, count and create; space content to read and write.
 * Domain errors (bad input, not found, a concurrent write, busy) answer their status (libs/runtime grpc.ts).
 */
export function contentGrpc(ctx: ContentContext): content.ContentServiceImplementation {
  const base = ctx.config.PUBLIC_BASE_URL;

  /** A Space message with what a lean BatchGetSpaces answers: where the space is, no viewer or REST object. */
  const toLeanSpace = (space: SpaceDoc): content.Space => ({
    id: space._id,
    organizationId: space.organizationId,
    title: space.title,
    emoji: space.emoji,
    visibility: space.visibility,
    parentId: space.parentId ?? '',
    revisionId: space.revisionId,
    defaultLevel: '',
    createTime: space.createdAt,
    updateTime: space.updatedAt,
    deleteTime: space.deletedAt ?? undefined,
    viewerRole: '',
    restJson: '',
  });

  /** `view`: a view of the space's organization (its collections give the level in force on the space). */
  const toSpace = (space: SpaceDoc, view: OrgView, viewerRole: Role | null, gitSync: GitSyncSummary | undefined): content.Space => ({
    ...toLeanSpace(space),
    defaultLevel: space.defaultLevel ?? '',
    viewerRole: viewerRole ?? '',
    restJson: JSON.stringify(
      presentSpace(space, { role: viewerRole, defaultLevel: spaceLevelIn(view, space), baseUrl: base, gitSync: gitSync && presentGitSync(gitSync) }),
    ),
  });

  /** Space messages of `spaces` (same order), with `viewer`'s role and view when one is given. */
  const toSpaces = async (spaces: SpaceDoc[], viewer: string): Promise<content.Space[]> => {
    // One identity call for every organization involved (with a viewer), one view per
    // organization: the viewer's roles, and the level in force on each space (its collections).
    const organizationIds = [...new Set(spaces.map((s) => s.organizationId))];
    const standings = viewer ? await getStandings(ctx, viewer, organizationIds) : new Map<string, MemberStanding>();
    const views = new Map<string, OrgView>();
    for (const organizationId of organizationIds) {
      views.set(organizationId, await loadOrgView(ctx, standings.get(organizationId) ?? nonMember(organizationId, viewer)));
    }
    const viewOf = (space: SpaceDoc) => views.get(space.organizationId)!;
    const gitSyncs = await loadGitSyncSummaries(
      ctx,
      spaces.map((s) => s._id),
    );
    return spaces.map((space) => toSpace(space, viewOf(space), viewer ? spaceRoleIn(viewOf(space), space) : null, gitSyncs.get(space._id)));
  };

  return {
    async batchGetSpaces(request) {
      const ids = [...new Set(checkBatch(request.ids, 'ids'))];
      if (ids.length === 0) return { spaces: [] };
      if (request.lean) {
        const spaces = await findCachedSpaces(ctx, ids);
        return { spaces: spaces.flatMap((space) => (request.includeDeleted || !space.deletedAt ? [toLeanSpace(space)] : [])) };
      }
      const found = new Map((await findSpaces(ctx, ids, { includeDeleted: request.includeDeleted })).map((s) => [s._id, s]));
      return {
        spaces: await toSpaces(
          ids.flatMap((id) => found.get(id) ?? []),
          request.viewerUserId,
        ),
      };
    },

    async listMemberSpaces(request) {
      if (!request.organizationId || !request.userId) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, 'organization_id and user_id are required');
      const standing: MemberStanding = {
        organizationId: request.organizationId,
        userId: request.userId,
        member: true,
        orgRole: orgRoleOf(request.orgRole),
        teamIds: request.teamIds,
      };
      const view = await loadOrgView(ctx, standing);
      // Spaces are presented to whoever asks: the member, or e.g. an admin looking at them.
      const viewer = request.viewerUserId && request.viewerUserId !== request.userId ? request.viewerUserId : undefined;
      const viewerView = viewer
        ? await loadOrgView(
            ctx,
            (await getStandings(ctx, viewer, [request.organizationId])).get(request.organizationId) ?? nonMember(request.organizationId, viewer),
          )
        : view;
      const page = await listVisibleSpaces(ctx, view, {
        order: request.order === 'asc' ? 'asc' : 'desc',
        limit: Math.min(Math.max(request.pageSize || 100, 1), MAX_GRPC_BATCH),
        page: request.pageToken || undefined,
      });
      const gitSyncs = await loadGitSyncSummaries(
        ctx,
        page.items.map((space) => space._id),
      );
      return {
        items: page.items.map((space) => {
          const role = spaceRoleIn(view, space);
          return { space: toSpace(space, view, viewer ? spaceRoleIn(viewerView, space) : role, gitSyncs.get(space._id)), role: role ?? '' };
        }),
        nextPageToken: page.next ?? '',
        totalSize: page.count,
      };
    },

    async batchCountSpaces(request) {
      const subjects = checkBatch(request.subjects, 'subjects');
      for (const subject of subjects) {
        if (!subject.organizationId || Boolean(subject.userId) === Boolean(subject.teamId)) {
          throw new GrpcError(grpcStatus.INVALID_ARGUMENT, 'each subject needs organization_id and exactly one of user_id or team_id');
        }
      }
      const counts = await countSpaces(
        ctx,
        subjects.map((s): SpaceCountSubject =>
          s.teamId
            ? { organizationId: s.organizationId, teamId: s.teamId }
            : { organizationId: s.organizationId, userId: s.userId, orgRole: orgRoleOf(s.orgRole), teamIds: s.teamIds },
        ),
      );
      return { counts };
    },

    async getSpaceContent(request) {
      if (!request.spaceId) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, 'space_id is required');
      const read = await readSpaceContent(ctx, request.spaceId, request.revisionId || undefined, { evaluated: request.evaluated });
      return {
        spaceId: read.space._id,
        organizationId: read.space.organizationId,
        revisionId: read.revision._id,
        title: read.space.title,
        language: read.space.language ?? '',
        updateTime: read.space.updatedAt,
        pages: toContentPages(read, await keptBodies(ctx, read, request.knownRevisionId)),
        files: toContentFiles(read),
      };
    },

    async searchSpaceContent(request) {
      const input = parseRequest(searchSpaceContentRequest, request);
      const { revision } = await findSpaceRevision(ctx, input.spaceId, input.revisionId || undefined);
      const { hits, count } = await searchRevision(ctx, revision, input.query, { offset: 0, limit: input.limit });
      return { revisionId: revision._id, total: count, hits: hits.map(toSearchHit) };
    },

    async createSpace(request) {
      const input = parseRequest(serviceSpaceRequest, request);
      const { space, created } = await createSpaceForService(ctx, {
        ...input,
        language: input.language || null,
        parentId: input.parentId || null,
        copyRevisionId: input.copyRevisionId || null,
      });
      const [presented] = await toSpaces([space], '');
      return { space: presented, created };
    },

    async writeSpacePages(request) {
      const input = parseRequest(writeSpacePagesRequest, request);
      return writeSpacePages(ctx, {
        spaceId: input.spaceId,
        expectedRevisionId: input.expectedRevisionId,
        userId: input.userId,
        pages: input.pages.map(({ id, parentId, hasContent, ...written }) => ({ id, parent: parentId || null, ...(hasContent ? { content: written } : {}) })),
      });
    },
  };
}
