import { X509Certificate } from 'node:crypto';
import { apiUrl, httpError, keysetPage, type KeysetPage } from '@quire/http';
import { newId, type Role } from '@quire/runtime';
import type { MembershipDoc } from '../db/models';
import type { SamlProviderDoc } from '../db/directory';
import type { IdentityContext } from './context';
import { getVisibleOrganization } from './organizations';
import { canAdministrate } from './permissions';
import { teamViews, type TeamView } from './teams';

export interface SamlProviderInput {
  label?: string;
  entityID?: string;
  certificate?: string;
  ssoURL?: string;
  defaultTeam?: string | null;
  defaultRole?: Role | null;
}

/** The DER bytes of a certificate given as PEM or as bare base64, or null when it is not one. */
export function parseCertificate(text: string): X509Certificate | null {
  const body = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return null;
  try {
    return new X509Certificate(Buffer.from(body, 'base64'));
  } catch {
    return null;
  }
}

/** A provider can sign people in once it knows where to send them and whose signature to trust. */
export function providerStatus(provider: SamlProviderDoc): 'active' | 'pending' {
  return provider.ssoURL && provider.entityID && provider.certificate ? 'active' : 'pending';
}

/** Where the identity provider talks to us for this provider (all public, no API token). */
export function serviceEndpoints(baseUrl: string, providerId: string) {
  const at = (path: string) => apiUrl(baseUrl, `/v1/public/saml/${providerId}/${path}`);
  return { acsURL: at('acs'), startURL: at('start'), entityID: at('metadata') };
}

export interface SamlProviderView {
  provider: SamlProviderDoc;
  defaultTeam?: TeamView;
}

async function requireAdmin(ctx: IdentityContext, callerId: string, organizationId: string): Promise<MembershipDoc> {
  const { membership } = await getVisibleOrganization(ctx, callerId, organizationId);
  if (!canAdministrate(membership)) throw httpError.forbidden('Only organization admins can manage SAML providers');
  return membership;
}

async function views(ctx: IdentityContext, caller: MembershipDoc, organizationId: string, providers: SamlProviderDoc[]): Promise<SamlProviderView[]> {
  const teamIds = [...new Set(providers.map((p) => p.defaultTeamId).filter((id): id is string => !!id))];
  const teams = teamIds.length ? await ctx.models.Team.find({ _id: { $in: teamIds }, organizationId }).lean() : [];
  const teamsById = new Map((await teamViews(ctx, caller, organizationId, teams)).map((t) => [t.team._id, t]));
  return providers.map((provider) => ({ provider, defaultTeam: provider.defaultTeamId ? teamsById.get(provider.defaultTeamId) : undefined }));
}

async function checkDefaultTeam(ctx: IdentityContext, organizationId: string, teamId: string | null | undefined): Promise<void> {
  if (teamId && !(await ctx.models.Team.exists({ _id: teamId, organizationId }))) {
    throw httpError.badRequest('Invalid body: defaultTeam: no such team in this organization');
  }
}

function fieldsOf(input: SamlProviderInput): Partial<SamlProviderDoc> {
  const { defaultTeam, ...rest } = input;
  return { ...rest, ...(defaultTeam !== undefined ? { defaultTeamId: defaultTeam } : {}) };
}

export async function listSamlProviders(
  ctx: IdentityContext,
  callerId: string,
  organizationId: string,
  query: { limit: number; page?: string },
): Promise<KeysetPage<SamlProviderView>> {
  const caller = await requireAdmin(ctx, callerId, organizationId);
  const page = await keysetPage(ctx.models.SamlProvider, {
    filter: { organizationId },
    sortField: 'createdAt',
    order: 'desc',
    limit: query.limit,
    page: query.page,
  });
  return { items: await views(ctx, caller, organizationId, page.items), next: page.next, count: page.count };
}

export async function createSamlProvider(ctx: IdentityContext, callerId: string, organizationId: string, input: SamlProviderInput & { label: string }) {
  const caller = await requireAdmin(ctx, callerId, organizationId);
  await checkDefaultTeam(ctx, organizationId, input.defaultTeam);
  const provider = await ctx.models.SamlProvider.create({ _id: newId(), organizationId, defaultRole: null, ...fieldsOf(input), createdAt: new Date() });
  return (await views(ctx, caller, organizationId, [provider.toObject()]))[0];
}

export async function getSamlProvider(ctx: IdentityContext, callerId: string, organizationId: string, providerId: string) {
  const caller = await requireAdmin(ctx, callerId, organizationId);
  const provider = await ctx.models.SamlProvider.findOne({ _id: providerId, organizationId }).lean();
  if (!provider) throw httpError.notFound('SAML provider');
  return (await views(ctx, caller, organizationId, [provider]))[0];
}

export async function updateSamlProvider(ctx: IdentityContext, callerId: string, organizationId: string, providerId: string, input: SamlProviderInput) {
  const caller = await requireAdmin(ctx, callerId, organizationId);
  await checkDefaultTeam(ctx, organizationId, input.defaultTeam);
  const provider = await ctx.models.SamlProvider.findOneAndUpdate(
    { _id: providerId, organizationId },
    { $set: fieldsOf(input) },
    { returnDocument: 'after' },
  ).lean();
  if (!provider) throw httpError.notFound('SAML provider');
  return (await views(ctx, caller, organizationId, [provider]))[0];
}

export async function deleteSamlProvider(ctx: IdentityContext, callerId: string, organizationId: string, providerId: string): Promise<void> {
  await requireAdmin(ctx, callerId, organizationId);
  await ctx.models.SamlProvider.deleteOne({ _id: providerId, organizationId });
}

/** How members can sign in: the organization's active providers (any member may ask). */
export async function listSsoLogins(ctx: IdentityContext, callerId: string, organizationId: string) {
  await getVisibleOrganization(ctx, callerId, organizationId);
  const providers = await ctx.models.SamlProvider.find({ organizationId }).sort({ createdAt: -1, _id: -1 }).limit(1000).lean();
  return providers
    .filter((p) => providerStatus(p) === 'active')
    .map((p) => ({ id: p._id, label: p.label, startURL: serviceEndpoints(ctx.config.PUBLIC_BASE_URL, p._id).startURL }));
}
