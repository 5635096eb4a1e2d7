import { fromService, httpError } from '@quire/http';
import { MAX_GRPC_BATCH } from '@quire/runtime';
import type { ContentContext, UserViewer } from '../kernel';

/*
 * The users and teams a space, a collection or a change request may name: those of its
 * own organization. Granting another tenant's user would show their e-mail in the
 * permission list (and requesting their review would in the answer); and an unknown id
 * and another organization's user get the same 400, so the check is no oracle for who
 * exists elsewhere. One batched identity call per check; identity down is a 503.
 */

/**
 * The Member objects (as identity's REST API presents them) of those of `userIds` who are
 * members of the organization, as `viewer` may see them (a guest sees no e-mail): one
 * identity.BatchGetMembers call (one per 1,000 users).
 */
export async function loadMembers(ctx: ContentContext, organizationId: string, userIds: readonly string[], viewer: UserViewer): Promise<Map<string, unknown>> {
  const answers = await inBatches(userIds, (ids) => ctx.clients.identity.batchGetMembers({ organizationId, userIds: ids }));
  const shown = (member: { user?: Record<string, unknown> }) => {
    if (viewer.emails || !member.user) return member;
    const { email: _hidden, ...user } = member.user;
    return { ...member, user };
  };
  return new Map(answers.flatMap(({ members }) => members.map((member) => [member.userId, shown(JSON.parse(member.restJson))] as const)));
}

/** One identity call per MAX_GRPC_BATCH ids, all at once; identity down is a 503. */
function inBatches<T>(ids: readonly string[], call: (batch: string[]) => Promise<T>): Promise<T[]> {
  const batches: string[][] = [];
  for (let i = 0; i < ids.length; i += MAX_GRPC_BATCH) batches.push(ids.slice(i, i + MAX_GRPC_BATCH));
  return Promise.all(batches.map((batch) => fromService('Identity', call(batch))));
}

const named = (ids: string[]) => ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length} in all)` : '');

/** 400 (`Invalid body: <field>: <id> is not a member of this organization`) unless every user is one of its members. */
export async function requireOrganizationMembers(ctx: ContentContext, organizationId: string, userIds: readonly string[], field: string): Promise<void> {
  const wanted = [...new Set(userIds)];
  if (wanted.length === 0) return;
  // Users only (not Member views with their counts): identity leaves out non-members and unknown ids alike.
  const answers = await inBatches(wanted, (ids) => ctx.clients.identity.batchGetUsers({ ids, organizationId }));
  const members = new Set(answers.flatMap(({ users }) => users.map((user) => user.id)));
  const missing = wanted.filter((id) => !members.has(id));
  if (missing.length === 0) return;
  throw httpError.badRequest(`Invalid body: ${field}: ${named(missing)} ${missing.length === 1 ? 'is not a member' : 'are not members'} of this organization`);
}

/** 400 (`Invalid body: <field>: <id> is not a team of this organization`) unless every team is one of its teams. */
export async function requireOrganizationTeams(ctx: ContentContext, organizationId: string, teamIds: readonly string[], field: string): Promise<void> {
  const wanted = [...new Set(teamIds)];
  if (wanted.length === 0) return;
  // identity leaves out unknown ids and other organizations' teams alike.
  const { teams } = await fromService('Identity', ctx.clients.identity.batchGetTeams({ organizationId, ids: wanted }));
  const found = new Set(teams.map((team) => team.id));
  const missing = wanted.filter((id) => !found.has(id));
  if (missing.length === 0) return;
  throw httpError.badRequest(`Invalid body: ${field}: ${named(missing)} ${missing.length === 1 ? 'is not a team' : 'are not teams'} of this organization`);
}
