import { requestContext } from './context';

/**
 * The organization the current request's token is scoped to, if any. A token an organization's
 * SSO issued is only worth that organization: its identity provider (configured by that
 * organization's admins) vouches for nothing elsewhere.
 */
export function tokenScope(): string | undefined {
  return requestContext.getStore()?.principal?.organizationId;
}

/**
 * Whether the caller's token forbids them to act in `organizationId`: true only when `userId` is
 * the caller themselves and their token is scoped to another organization. Every lookup of the
 * caller's own membership asks this first and treats a true answer as "not a member" (a 404),
 * whatever the user's other memberships; lookups of other users are untouched.
 */
export function outsideTokenScope(organizationId: string, userId: string): boolean {
  const principal = requestContext.getStore()?.principal;
  return !!principal?.organizationId && principal.userId === userId && principal.organizationId !== organizationId;
}

/**
 * The integration scopes of the current request's token when it is an installation's (GitBook's
 * installation token), undefined for anyone else's. Its role in its organization comes from
 * them already; this is for rules that go by one scope (`space:metadata:write`).
 */
export function installationScopes(): readonly string[] | undefined {
  return requestContext.getStore()?.principal?.installationScopes;
}
