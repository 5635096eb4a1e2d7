import type { Route } from '@quire/http';
import { permissionRoutes } from '../access';
import { changeRequestRoutes } from '../change-requests';
import { commentRoutes } from '../comments';
import { gitRoutes, loadSpacesGitSyncs, presentGitSync } from '../git';
import type { ContentContext } from '../kernel';
import { contentReadRoutes, downloadRoutes } from '../revisions';
import { searchRoutes } from '../search';
import { collectionRoutes, spaceRoutes, type SpaceGitSyncs } from '../structure';
import { templateRoutes } from '../templates';

/**
 * Every REST route of the content service, as data (the router and the API document are
 * made from it), in the order express tries them.
 */
export function contentRoutes(ctx: ContentContext): Route[] {
  // Spaces show their Git sync state: git keeps it and presents it, structure embeds it.
  const gitSyncs: SpaceGitSyncs = async (spaces) => {
    const states = await loadSpacesGitSyncs(ctx, spaces);
    return new Map([...states].map(([spaceId, state]) => [spaceId, presentGitSync(state)]));
  };
  return [
    ...spaceRoutes(ctx, { gitSyncs }),
    ...collectionRoutes(ctx),
    ...permissionRoutes(ctx),
    ...downloadRoutes(ctx),
    ...changeRequestRoutes(ctx),
    ...contentReadRoutes(ctx),
    ...commentRoutes(ctx),
    ...searchRoutes(ctx),
    ...templateRoutes(ctx),
    ...gitRoutes(ctx),
  ];
}
