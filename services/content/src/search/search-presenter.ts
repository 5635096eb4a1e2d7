import { apiUrl } from '@quire/http';
import type { BackendConfig } from '@quire/runtime';
import { sectionTitle, type PageHit } from './search';

/** A ranked page (OpenAPI SearchPageResult) of a space's revision, with its matching sections (SearchSectionResult). */
export function presentHit(
  hit: PageHit,
  { rank, ...context }: { rank: number; config: Pick<BackendConfig, 'PUBLIC_BASE_URL'>; spaceId: string; revisionId: string },
) {
  const pageUrl = apiUrl(context.config.PUBLIC_BASE_URL, `/s/${context.spaceId}/~/revisions/${context.revisionId}/${hit.page.path}`);
  return {
    id: hit.page.id,
    title: hit.page.title,
    description: hit.page.description,
    path: hit.page.path,
    score: hit.score,
    rank,
    resultType: hit.resultType,
    sections: hit.sections.map(({ section, score, resultType, body }) => ({
      id: section.anchor ?? hit.page.id,
      title: sectionTitle(hit, section),
      path: section.anchor === null ? hit.page.path : `${hit.page.path}#${section.anchor}`,
      body,
      score,
      resultType,
      urls: { app: section.anchor === null ? pageUrl : `${pageUrl}#${encodeURIComponent(section.anchor)}` },
    })),
    ancestors: hit.ancestors.map((title) => ({ title })),
    urls: { app: pageUrl },
  };
}
