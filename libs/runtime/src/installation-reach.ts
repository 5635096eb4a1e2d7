import type { identity } from '@quire/proto';

/*
 * What an integration's installation may act on in its organization: the spaces and sites its
 * installation covers (its space and site selection: all, or the selected ones), of the kinds
 * its approved scopes name. Identity answers it with the installation user's membership, so it
 * rides along wherever a caller's standing is looked up (and is cached and invalidated with it);
 * every space and site the reach leaves out answers to that user as to an outsider.
 */

/** Spaces and sites an installation's user reaches: all of its organization's, or those listed. */
export interface InstallationReach {
  spaces: 'all' | readonly string[];
  sites: 'all' | readonly string[];
}

/** Identity's answer as the request path keeps it (frozen); undefined for anyone who is not an installation. */
export function reachFromProto(selection: identity.InstallationSelection | undefined): InstallationReach | undefined {
  if (!selection) return undefined;
  return Object.freeze({
    spaces: selection.allSpaces ? 'all' : Object.freeze([...selection.spaceIds]),
    sites: selection.allSites ? 'all' : Object.freeze([...selection.siteIds]),
  });
}

/** Whether the member reaches this space or site: always when they are not an installation (no reach). */
export function reaches(reach: InstallationReach | undefined, kind: keyof InstallationReach, id: string): boolean {
  const covered = reach?.[kind];
  return covered === undefined || covered === 'all' || covered.includes(id);
}

/** The only ids of this kind a list may hold for the member; undefined when it needs no narrowing. */
export function reachedIds(reach: InstallationReach | undefined, kind: keyof InstallationReach): readonly string[] | undefined {
  const covered = reach?.[kind];
  return covered === undefined || covered === 'all' ? undefined : covered;
}
