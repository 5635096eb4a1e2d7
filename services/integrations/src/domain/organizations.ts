import type { z } from 'zod';
import type { organization } from '@quire/contract';
import { fromService, httpError } from '@quire/http';
import { MAX_GRPC_BATCH, tokenScope } from '@quire/runtime';
import type { IntegrationsContext } from './context';

/** The Organization object (spec "Organization") as identity presents it to the caller. */
export type OrganizationObject = z.infer<typeof organization>;

/**
 * The organization a publish names, by id or by hostname (subdomain): its id; 404 when no
 * organization has it (the spec's failure). An id wins over another organization's hostname.
 */
export async function resolveOrganization(ctx: IntegrationsContext, reference: string): Promise<string> {
  const { organizations } = await fromService('Identity', ctx.clients.identity.batchGetOrganizations({ ids: [reference], hostnames: [reference] }));
  const found = organizations.find((o) => o.id === reference) ?? organizations.find((o) => o.hostname === reference.toLowerCase());
  if (!found) throw httpError.notFound('Organization');
  return found.id;
}

/**
 * The organizations as `viewerUserId` sees them (identity's own presentation, with the
 * caller's token scope), in one call per thousand: what a page of integrations embeds as
 * `owner`. Unknown ids are left out.
 */
export async function organizationsAsSeenBy(
  ctx: IntegrationsContext,
  viewerUserId: string,
  organizationIds: readonly string[],
): Promise<Map<string, OrganizationObject>> {
  const ids = [...new Set(organizationIds)];
  const seen = new Map<string, OrganizationObject>();
  for (let i = 0; i < ids.length; i += MAX_GRPC_BATCH) {
    const { organizations } = await fromService(
      'Identity',
      ctx.clients.identity.batchGetOrganizations({
        ids: ids.slice(i, i + MAX_GRPC_BATCH),
        viewerUserId,
        viewerTokenOrganizationId: tokenScope() ?? '',
      }),
    );
    for (const o of organizations) if (o.restJson) seen.set(o.id, JSON.parse(o.restJson) as OrganizationObject);
  }
  return seen;
}
