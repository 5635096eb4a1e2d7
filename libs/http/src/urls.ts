/** An absolute address under the public base URL, e.g. apiUrl(base, '/v1/orgs/x'). */
export function apiUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
