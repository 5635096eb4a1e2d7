/** An absolute address under the public base URL, e.g. apiUrl(base, '/v1/orgs/x'). */
export function apiUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

/** "Getting Started: Ünïcode!" → "getting-started-unicode": a URL path segment from a title. */
export function slugify(title: string, options: { maxLength?: number; fallback?: string } = {}): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, options.maxLength ?? 100)
    .replace(/-+$/, '');
  return slug || (options.fallback ?? 'untitled');
}
