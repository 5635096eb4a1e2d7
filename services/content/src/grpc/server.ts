import { HttpError } from '@quire/http';
import type { content } from '@quire/proto';
import { GrpcError, grpcStatus, type Role, checkBatch, MAX_GRPC_BATCH } from '@quire/runtime';
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
import { findSpaces, listVisibleSpaces, presentSpace } from '../structure';

function orgRoleOf(name: string): Role | null {
  if (!name) return null;
  if (!isRole(name)) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, `org_role: unknown role ${name}`);
  return name;
}

/** ContentService over gRPC: spaces for other services to embed, list and count. */
export function contentGrpc(ctx: ContentContext): content.ContentServiceImplementation {
  const base = ctx.config.PUBLIC_BASE_URL;

  /** `view`: a view of the space's organization (its collections give the level in force on the space). */
  const toSpace = (space: SpaceDoc, view: OrgView, viewerRole: Role | null, gitSync: GitSyncSummary | undefined): content.Space => ({
    id: space._id,
    organizationId: space.organizationId,
    title: space.title,
    emoji: space.emoji,
    visibility: space.visibility,
    parentId: space.parentId ?? '',
    revisionId: space.revisionId,
    defaultLevel: space.defaultLevel ?? '',
    createTime: space.createdAt,
    updateTime: space.updatedAt,
    deleteTime: space.deletedAt ?? undefined,
    viewerRole: viewerRole ?? '',
    restJson: JSON.stringify(
      presentSpace(space, { role: viewerRole, defaultLevel: spaceLevelIn(view, space), baseUrl: base, gitSync: gitSync && presentGitSync(gitSync) }),
    ),
  });

  return {
    async batchGetSpaces(request) {
      const ids = [...new Set(checkBatch(request.ids, 'ids'))];
      if (ids.length === 0) return { spaces: [] };
      const spaces = await findSpaces(ctx, ids, { includeDeleted: request.includeDeleted });
      const viewer = request.viewerUserId;
      // One identity call for every organization involved (with a viewer), one view per
      // organization: the viewer's roles, and the level in force on each space (its collections).
      const organizationIds = [...new Set(spaces.map((s) => s.organizationId))];
      const standings = viewer ? await getStandings(ctx, viewer, organizationIds) : new Map<string, MemberStanding>();
      const views = new Map<string, OrgView>();
      for (const organizationId of organizationIds) {
        views.set(organizationId, await loadOrgView(ctx, standings.get(organizationId) ?? nonMember(organizationId, viewer)));
      }
      const viewOf = (space: SpaceDoc) => views.get(space.organizationId)!;
      const byId = new Map(spaces.map((s) => [s._id, s]));
      const gitSyncs = await loadGitSyncSummaries(
        ctx,
        spaces.map((s) => s._id),
      );
      return {
        spaces: ids.flatMap((id) => {
          const space = byId.get(id);
          return space ? [toSpace(space, viewOf(space), viewer ? spaceRoleIn(viewOf(space), space) : null, gitSyncs.get(id))] : [];
        }),
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
      try {
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
      } catch (error) {
        if (error instanceof HttpError) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, error.message);
        throw error;
      }
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
  };
}
