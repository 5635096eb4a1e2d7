import type { SiteSectionDoc, SiteSpaceDoc } from '../db/models';
import { defaultSectionOf, defaultSiteSpaceIds, type SiteStructure } from './structure';

/*
 * The addresses below a site's root in one canonical form, "/install/linux": each segment
 * decoded, then encoded again. Redirect sources and the addresses a site has published are
 * stored in it, and the address a visitor asks is put in it to look them up.
 */

const decoded = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** The canonical address of decoded segments ("/" for the site root). */
export function addressKey(segments: readonly string[]): string {
  return `/${segments
    .filter((segment) => segment !== '')
    .map(encodeURIComponent)
    .join('/')}`;
}

/** A redirect's source path in canonical form; with a trailing `*`, the prefix the addresses it matches start with. */
export function sourceKey(source: string): { key: string; wildcard: boolean; prefix: string | null } {
  const slashStar = source.endsWith('/*');
  const star = source.endsWith('*');
  const base = addressKey(
    source
      .slice(0, slashStar ? -2 : star ? -1 : undefined)
      .split('/')
      .map(decoded),
  );
  if (slashStar) return { key: `${base}/*`, wildcard: true, prefix: `${base}/` };
  if (star) return { key: `${base}*`, wildcard: true, prefix: base };
  return { key: base, wildcard: false, prefix: null };
}

/**
 * What a wildcard redirect leaves of an address it matches ("/a/b" of "/old/a/b" for "/old/*",
 * "" for "/old" itself; "er" of "/older" for "/old*"), or undefined when it does not match it.
 */
export function wildcardSuffix(prefix: string, address: string): string | undefined {
  if (prefix.endsWith('/')) {
    if (address === prefix.slice(0, -1)) return '';
    return address.startsWith(prefix) ? address.slice(prefix.length - 1) : undefined;
  }
  return address.startsWith(prefix) ? address.slice(prefix.length) : undefined;
}

/** `path` followed by a wildcard's suffix: "/x" and "/a" is "/x/a" (one slash), "/x" and "er" is "/xer". */
export function withSuffix(path: string, suffix: string): string {
  if (!suffix) return path;
  return suffix.startsWith('/') ? `${path.replace(/\/+$/, '')}${suffix}` : `${path}${suffix}`;
}

/** Where the variants of a site are, below its root. */
export interface VariantPlacement {
  section?: SiteSectionDoc;
  siteSpace: SiteSpaceDoc;
  /** The segments of the variant's root as the site links it (none for the default variant of the default section). */
  prefix: string[];
  /** Other segments that reach the same root (the default section named by its path). */
  alternates: string[][];
}

/** Every variant of the structure with the segments of its root, in the order pages find them. */
export function variantPlacements(structure: SiteStructure): VariantPlacement[] {
  const defaults = defaultSiteSpaceIds(structure);
  const defaultSection = defaultSectionOf(structure.site, structure.sections);
  const containers: Array<SiteSectionDoc | undefined> = structure.sections.length ? structure.sections : [undefined];
  return containers.flatMap((section) =>
    structure.siteSpaces
      .filter((siteSpace) => siteSpace.sectionId === (section?._id ?? null))
      .map((siteSpace) => {
        const own = defaults.has(siteSpace._id) ? [] : [siteSpace.path];
        const isDefault = !section || section._id === defaultSection?._id;
        return {
          section,
          siteSpace,
          prefix: isDefault ? own : [section.path, ...own],
          alternates: isDefault && section ? [[section.path, ...own]] : [],
        };
      }),
  );
}
