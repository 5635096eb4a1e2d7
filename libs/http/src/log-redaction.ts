/**
 * Query parameters that carry secrets by contract: share keys, visitor and SAML tokens,
 * OAuth/OpenID Connect authorization codes (a visitor's sign-in coming back to a site),
 * and the signatures of time-limited download links. Request logs print urls, so their
 * values never reach a log line.
 */
const SECRET_QUERY = /([?&](?:shareKey|share|visitorAuthToken|jwt_token|token|code|signature|SAMLRequest|SAMLResponse|RelayState)=)[^&#]*/gi;

/** `url` with the value of every secret query parameter replaced. */
export function redactSecretQuery(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}
