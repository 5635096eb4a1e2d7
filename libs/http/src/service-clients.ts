import { member, organization, site, space } from '@quire/contract';
import type { content, identity, insights, publishing } from '@quire/proto';
import { MAX_GRPC_BATCH, type ServiceClients } from '@quire/runtime';
import type { z } from 'zod';
import { fromService, httpError } from './errors';
import { zodMessage } from './validate';

/*
 * The one typed client of each service, what every caller uses: `clientsOf(ctx).content.batchGetSpaces(…)`.
 * Over the gRPC connections of the context (`ctx.clients`, libs/runtime), each method
 *   - takes any number of ids in a batch method: the call is split by the contract's maximum
 *     batch (MAX_GRPC_BATCH), BATCH_CONCURRENCY slices at a time, and the answers concatenated
 *     in the order of the slices (counts summed);
 *   - fails with a ServiceError (fromService: a 503 naming the service, with the gRPC status
 *     it answered for the callers that expect one);
 *   - answers each `rest_json` parsed with libs/contract's schema of that object (as `rest`):
 *     an answer that does not match is a MalformedAnswerError naming the object and field.
 */

/** Slices of one batch asked at once. */
const BATCH_CONCURRENCY = 4;

/** Per-call options callers may give (a longer deadline for a large read). */
export interface CallOptions {
  /** Milliseconds (the service's GRPC_DEADLINE_MS when absent). */
  deadline?: number;
}

/** Another service answered an object that is not what the contract says it is: its bug, a 500 here. */
export class MalformedAnswerError extends Error {
  constructor(service: string, object: string, problem: string) {
    super(`${service} answered a malformed ${object}: ${problem}`);
    this.name = 'MalformedAnswerError';
  }
}

export type SpaceObject = z.output<typeof space>;
export type SiteObject = z.output<typeof site>;
export type OrganizationObject = z.output<typeof organization>;
export type MemberObject = z.output<typeof member>;

/** A Space message with its REST object parsed (absent when content answered none: a lean read). */
export type ServiceSpace = Omit<content.Space, 'restJson'> & { rest?: SpaceObject };
/** A Site message with its REST object parsed (absent when no viewer was named). */
export type ServiceSite = Omit<publishing.Site, 'restJson'> & { rest?: SiteObject };
/** An Organization message with its REST object parsed (absent when no viewer was named). */
export type ServiceOrganization = Omit<identity.Organization, 'restJson'> & { rest?: OrganizationObject };
/** A Member message with its REST object parsed. */
export type ServiceMember = Omit<identity.Member, 'restJson'> & { rest: MemberObject };

export interface IdentityClient {
  resolveToken(request: { token: string }): Promise<identity.ResolveTokenResponse>;
  getMembership(request: { organizationId: string; userId: string }): Promise<identity.GetMembershipResponse>;
  batchGetMemberships(request: { userId: string; organizationIds: readonly string[] }): Promise<{ memberships: identity.Membership[] }>;
  batchGetUsers(request: { ids: readonly string[]; organizationId?: string }): Promise<{ users: identity.User[] }>;
  /** Split on both lists: an organization named by id and by hostname in different slices is answered twice. */
  batchGetOrganizations(request: {
    ids: readonly string[];
    hostnames?: readonly string[];
    viewerUserId?: string;
    viewerTokenOrganizationId?: string;
  }): Promise<{ organizations: ServiceOrganization[] }>;
  batchGetTeams(request: { organizationId: string; ids: readonly string[] }): Promise<{ teams: identity.Team[] }>;
  batchGetMembers(request: { organizationId: string; userIds: readonly string[] }): Promise<{ members: ServiceMember[] }>;
  issueInstallationToken(request: identity.IssueInstallationTokenRequest): Promise<identity.IssueInstallationTokenResponse>;
  revokeInstallationTokens(request: { installationIds: readonly string[] }): Promise<{ revokedCount: number }>;
  updateInstallationAccess(request: { installations: readonly identity.InstallationAccess[] }): Promise<{ changedCount: number }>;
}

export interface ContentClient {
  batchGetSpaces(request: { ids: readonly string[]; includeDeleted?: boolean; viewerUserId?: string; lean?: boolean }): Promise<{ spaces: ServiceSpace[] }>;
  listMemberSpaces(
    request: Partial<content.ListMemberSpacesRequest>,
  ): Promise<{ items: Array<{ space?: ServiceSpace; role: string }>; nextPageToken: string; totalSize: number }>;
  /** Counts in the order of the subjects. */
  batchCountSpaces(request: { subjects: ReadonlyArray<Partial<content.CountSubject>> }): Promise<{ counts: number[] }>;
  getSpaceContent(request: Partial<content.GetSpaceContentRequest>, options?: CallOptions): Promise<content.GetSpaceContentResponse>;
  searchSpaceContent(request: Partial<content.SearchSpaceContentRequest>): Promise<content.SearchSpaceContentResponse>;
  createSpace(request: content.CreateSpaceRequest, options?: CallOptions): Promise<{ space?: ServiceSpace; created: boolean }>;
  writeSpacePages(request: content.WriteSpacePagesRequest, options?: CallOptions): Promise<content.WriteSpacePagesResponse>;
}

export interface PublishingClient {
  batchGetSites(request: { ids: readonly string[]; viewerUserId?: string }): Promise<{ sites: ServiceSite[] }>;
  /** Counts in the order of the organizations. */
  batchCountSites(request: { organizationIds: readonly string[] }): Promise<{ counts: number[] }>;
  resolveShareKey(request: publishing.ResolveShareKeyRequest): Promise<publishing.ResolveShareKeyResponse>;
  /** The views of the revisits the gateway answered (at most 1000 per call). */
  recordSiteViews(request: publishing.RecordSiteViewsRequest): Promise<publishing.RecordSiteViewsResponse>;
}

export interface InsightsClient {
  batchGetClusters(request: { ids: readonly string[] }): Promise<{ clusters: insights.Cluster[] }>;
}

/** The typed clients of the other services. */
export interface Clients {
  identity: IdentityClient;
  content: ContentClient;
  publishing: PublishingClient;
  insights: InsightsClient;
}

const made = new WeakMap<ServiceClients, Clients>();
let unconfigured: Clients | undefined;

/**
 * The typed clients over the context's gRPC connections (made once per context). A context
 * without connections (identity's, in tests that need no other service) fails every call with
 * a 503 saying the service is not configured.
 */
export function clientsOf(deps: { clients?: ServiceClients }): Clients {
  const connections = deps.clients;
  if (!connections) return (unconfigured ??= typedClients(undefined));
  let clients = made.get(connections);
  if (!clients) made.set(connections, (clients = typedClients(connections)));
  return clients;
}

function typedClients(connections: ServiceClients | undefined): Clients {
  return {
    identity: identityClient(caller(connections, 'identity', 'Identity')),
    content: contentClient(caller(connections, 'content', 'Content')),
    publishing: publishingClient(caller(connections, 'publishing', 'Publishing')),
    insights: insightsClient(caller(connections, 'insights', 'Insights')),
  };
}

type Call<K extends keyof ServiceClients> = <R>(call: (client: ServiceClients[K]) => Promise<R>) => Promise<R>;

/** Runs a call on the service's connection (made on first use), its failure a ServiceError. */
function caller<K extends keyof ServiceClients>(connections: ServiceClients | undefined, name: K, service: string): Call<K> {
  return async (call) => {
    if (!connections) throw httpError.unavailable(`${service} service is not configured`);
    return fromService(service, call(connections[name]));
  };
}

function identityClient(call: Call<'identity'>): IdentityClient {
  const parseOrganization = restParser('Identity', 'Organization', organization);
  const parseMember = restParser('Identity', 'Member', member);
  return {
    resolveToken: (request) => call((c) => c.resolveToken(request)),
    getMembership: (request) => call((c) => c.getMembership(request)),
    async batchGetMemberships({ organizationIds, ...request }) {
      const answers = await inSlices(organizationIds, (slice) => call((c) => c.batchGetMemberships({ ...request, organizationIds: slice })));
      return { memberships: answers.flatMap((answer) => answer.memberships) };
    },
    async batchGetUsers({ ids, ...request }) {
      const answers = await inSlices(ids, (slice) => call((c) => c.batchGetUsers({ ...request, ids: slice })));
      return { users: answers.flatMap((answer) => answer.users) };
    },
    async batchGetOrganizations({ ids, hostnames = [], ...request }) {
      const idSlices = slicesOf(ids);
      const hostnameSlices = slicesOf(hostnames);
      const answers = await allBounded(
        Array.from(
          { length: Math.max(idSlices.length, hostnameSlices.length) },
          (_, i) => () => call((c) => c.batchGetOrganizations({ ...request, ids: idSlices[i] ?? [], hostnames: hostnameSlices[i] ?? [] })),
        ),
      );
      return {
        organizations: answers.flatMap((answer) => answer.organizations.map(({ restJson, ...fields }) => ({ ...fields, rest: parseOrganization(restJson) }))),
      };
    },
    async batchGetTeams({ ids, ...request }) {
      const answers = await inSlices(ids, (slice) => call((c) => c.batchGetTeams({ ...request, ids: slice })));
      return { teams: answers.flatMap((answer) => answer.teams) };
    },
    async batchGetMembers({ userIds, ...request }) {
      const answers = await inSlices(userIds, (slice) => call((c) => c.batchGetMembers({ ...request, userIds: slice })));
      return {
        members: answers.flatMap((answer) =>
          answer.members.map(({ restJson, ...fields }) => ({ ...fields, rest: parseMember(restJson) ?? malformed('Identity', 'Member', 'no object') })),
        ),
      };
    },
    issueInstallationToken: (request) => call((c) => c.issueInstallationToken(request)),
    async revokeInstallationTokens({ installationIds }) {
      const answers = await inSlices(installationIds, (slice) => call((c) => c.revokeInstallationTokens({ installationIds: slice })));
      return { revokedCount: answers.reduce((sum, answer) => sum + answer.revokedCount, 0) };
    },
    async updateInstallationAccess({ installations }) {
      const answers = await inSlices(installations, (slice) => call((c) => c.updateInstallationAccess({ installations: slice })));
      return { changedCount: answers.reduce((sum, answer) => sum + answer.changedCount, 0) };
    },
  };
}

function contentClient(call: Call<'content'>): ContentClient {
  const parseSpace = restParser('Content', 'Space', space);
  const withRest = ({ restJson, ...fields }: content.Space): ServiceSpace => ({ ...fields, rest: parseSpace(restJson) });
  return {
    async batchGetSpaces({ ids, ...request }) {
      const answers = await inSlices(ids, (slice) => call((c) => c.batchGetSpaces({ ...request, ids: slice })));
      return { spaces: answers.flatMap((answer) => answer.spaces.map(withRest)) };
    },
    async listMemberSpaces(request) {
      const answer = await call((c) => c.listMemberSpaces(request));
      return { ...answer, items: answer.items.map((item) => ({ role: item.role, space: item.space && withRest(item.space) })) };
    },
    async batchCountSpaces({ subjects }) {
      const answers = await inSlices(subjects, (slice) => call((c) => c.batchCountSpaces({ subjects: slice })));
      return { counts: answers.flatMap((answer) => answer.counts) };
    },
    getSpaceContent: (request, options) => call((c) => c.getSpaceContent(request, options)),
    searchSpaceContent: (request) => call((c) => c.searchSpaceContent(request)),
    async createSpace(request, options) {
      const answer = await call((c) => c.createSpace(request, options));
      return { created: answer.created, space: answer.space && withRest(answer.space) };
    },
    writeSpacePages: (request, options) => call((c) => c.writeSpacePages(request, options)),
  };
}

function publishingClient(call: Call<'publishing'>): PublishingClient {
  const parseSite = restParser('Publishing', 'Site', site);
  return {
    async batchGetSites({ ids, ...request }) {
      const answers = await inSlices(ids, (slice) => call((c) => c.batchGetSites({ ...request, ids: slice })));
      return { sites: answers.flatMap((answer) => answer.sites.map(({ restJson, ...fields }) => ({ ...fields, rest: parseSite(restJson) }))) };
    },
    async batchCountSites({ organizationIds }) {
      const answers = await inSlices(organizationIds, (slice) => call((c) => c.batchCountSites({ organizationIds: slice })));
      return { counts: answers.flatMap((answer) => answer.counts) };
    },
    resolveShareKey: (request) => call((c) => c.resolveShareKey(request)),
    recordSiteViews: (request) => call((c) => c.recordSiteViews(request)),
  };
}

function insightsClient(call: Call<'insights'>): InsightsClient {
  return {
    async batchGetClusters({ ids }) {
      const answers = await inSlices(ids, (slice) => call((c) => c.batchGetClusters({ ids: slice })));
      return { clusters: answers.flatMap((answer) => answer.clusters) };
    },
  };
}

function malformed(service: string, object: string, problem: string): never {
  throw new MalformedAnswerError(service, object, problem);
}

/** A parser of the `rest_json` of one kind of object: '' is no object (undefined), anything else must match the contract's schema. */
function restParser<S extends z.ZodType>(service: string, object: string, schema: S): (json: string) => z.output<S> | undefined {
  return (json) => {
    if (!json) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      return malformed(service, object, 'not JSON');
    }
    const result = schema.safeParse(value);
    return result.success ? result.data : malformed(service, object, zodMessage(result.error, 'body'));
  };
}

/** `items` cut in slices of at most MAX_GRPC_BATCH, in order (none for no items). */
function slicesOf<T>(items: readonly T[]): T[][] {
  const slices: T[][] = [];
  for (let start = 0; start < items.length; start += MAX_GRPC_BATCH) slices.push(items.slice(start, start + MAX_GRPC_BATCH));
  return slices;
}

/** `call` on each slice of `items` (see allBounded): the answers in the slices' order; no call for no items. */
function inSlices<T, R>(items: readonly T[], call: (slice: T[]) => Promise<R>): Promise<R[]> {
  return allBounded(slicesOf(items).map((slice) => () => call(slice)));
}

/** Runs the tasks BATCH_CONCURRENCY at a time, their results in order; after a failure no further task starts. */
async function allBounded<R>(tasks: ReadonlyArray<() => Promise<R>>): Promise<R[]> {
  const results: R[] = new Array(tasks.length);
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < tasks.length) {
      const index = next++;
      try {
        results[index] = await tasks[index]!();
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, tasks.length) }, lane));
  return results;
}
