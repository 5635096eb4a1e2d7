import { clientsOf, httpError, type OrganizationObject } from '@quire/http';
import { tokenScope } from '@quire/runtime';
import type { IntegrationsContext } from './context';

/** The Organization object (spec "Organization") as identity presents it to the caller. */
export type { OrganizationObject };

/**
 * The organization a publish names, by id or by hostname (subdomain): its id; 404 when no
 * organization has it (the spec's failure). An id wins over another organization's hostname.
 */
export async function resolveOrganization(ctx: IntegrationsContext, reference: string): Promise<string> {
  const { organizations } = await clientsOf(ctx).identity.batchGetOrganizations({ ids: [reference], hostnames: [reference] });
  const found = organizations.find((o) => o.id === reference) ?? organizations.find((o) => o.hostname === reference.toLowerCase());
  if (!found) throw httpError.notFound('Organization');
  return found.id;
}

/**
 * The organizations as `viewerUserId` sees them (identity's own presentation, with the
 * caller's token scope), in one batched call: what a page of integrations embeds as
 * `owner`. Unknown ids are left out.
 */
export async function organizationsAsSeenBy(
  ctx: IntegrationsContext,
  viewerUserId: string,
  organizationIds: readonly string[],
): Promise<Map<string, OrganizationObject>> {
  const { organizations } = await clientsOf(ctx).identity.batchGetOrganizations({
    ids: [...new Set(organizationIds)],
    viewerUserId,
    viewerTokenOrganizationId: tokenScope() ?? '',
  });
  return new Map(organizations.flatMap((o) => (o.rest ? [[o.id, o.rest] as const] : [])));
}
