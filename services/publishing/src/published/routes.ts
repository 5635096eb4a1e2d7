import type { Request, Response } from 'express';
import { z } from 'zod';
import { HttpError, httpError, route, type Route } from '@quire/http';
import type { PublishingContext } from '../domain/context';
import { addressOnGateway, addressOnHost, gatewaySitePath, hostedRoot, type SiteAddress } from './address';
import { notFound, securityHeaders, sendText } from './answers';
import { admit, AudienceDecision, clearSiteCookie } from './audience';
import { messageHtml } from './html';
import { bareFrame } from './pages';
import { pathOf } from './paths';
import { siteView } from './site-view';

/*
 * Published sites as web pages (design.md §1: publishing serves them to their audience). The
 * gateway sends /sites/<org>/<site>/… and every request on a site's own host here. Each address
 * below a site's root is one of its paths (paths.ts): found here, after the site and the
 * audience the path asks for. A page is answered with an ETag made of everything it shows (the
 * site's version, the revisions and titles of its spaces, the visitor's view of the structure):
 * a revisit of an unchanged page is a 304, and a merge changes the ETag at once.
 */

/** What the visitor gets when the audience does not let them in: a redirect, a sign-in page or a 404 that names nothing. */
function refuse(req: Request, res: Response, address: SiteAddress, decision: AudienceDecision): Promise<void> {
  if (decision.clearCookie) clearSiteCookie(res, address, decision.clearCookie);
  if (decision.status === 302) {
    res
      .status(302)
      .set({ location: decision.location ?? address.basePath, 'cache-control': 'no-store' })
      .end();
    return Promise.resolve();
  }
  if (decision.status === 404) return notFound(req, res, address.basePath);
  const frame = bareFrame(address.basePath, address.site.title, `Sign in | ${address.site.title}`);
  const message = 'This site is only open to signed-in visitors. Open it from the link your sign-in gives you.';
  return sendText(req, res, 401, 'text/html', messageHtml(frame, 'Sign in to read this site', message), { 'cache-control': 'no-store' });
}

/**
 * Answers an address of a site with the path that matches it, every answer with `headers`
 * (securityHeaders), and an HTML 404 for any site or page that is not there.
 * `asked`: the site root the address names whether or not there is a site, and what lies below it.
 */
async function answer(
  ctx: PublishingContext,
  req: Request,
  res: Response,
  headers: Record<string, string>,
  asked: { basePath: string; below: string[] },
  find: () => Promise<SiteAddress>,
): Promise<void> {
  res.set(headers);
  const asAsked = pathOf(asked.below);
  // Pages are read; only what agents talk to (the MCP endpoint) and a page's form (its feedback) take POST: for anything else there is no such route.
  if (req.method === 'POST' && !(asAsked.audience === 'visitors' && (asAsked.forAgents || asAsked.postsForm)))
    throw httpError.notFound(`No route for POST ${req.path}`);
  if (asAsked.audience === 'anyone') return asAsked.serve({ ctx, req, res });
  let address: SiteAddress;
  try {
    address = await find();
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) return notFound(req, res, asked.basePath);
    throw error;
  }
  if (address.needsSlash) {
    const query = req.originalUrl.indexOf('?');
    res.redirect(301, `${address.basePath}${query >= 0 ? req.originalUrl.slice(query) : ''}`);
    return;
  }
  const path = pathOf(address.segments);
  if (path.audience === 'anyone') return path.serve({ ctx, req, res });
  if (path.audience === 'site') return path.serve({ ctx, req, res, address });
  const admitted = await admit(ctx, address, req, res, path.forAgents ? 'per-request' : 'to-cookie');
  if (admitted instanceof AudienceDecision) return refuse(req, res, address, admitted);
  const view = await siteView(ctx, address, admitted.claims);
  if (path.offered && !path.offered(view)) return notFound(req, res, view);
  return path.serve({ ctx, req, res, address, view });
}

const rest = z.array(z.string()).optional();
const segment = z.string().min(1).max(200);

export function publishedSiteRoutes(ctx: PublishingContext): Route[] {
  const headers = securityHeaders(ctx.config);
  // GET for every address of a site; POST too, for the one path that takes it (the MCP endpoint, paths.ts).
  return (['get', 'post'] as const).flatMap((method) => [
    route({
      method,
      path: '/sites/:org/:site{/*rest}',
      summary: 'A page of a published site, at the gateway',
      access: 'public',
      website: true,
      produces: 'text/html',
      params: z.object({ org: segment, site: segment, rest }),
      handler: ({ params, req, res }) =>
        answer(ctx, req, res, headers, { basePath: gatewaySitePath(params.org, params.site), below: params.rest ?? [] }, () =>
          addressOnGateway(ctx, params.org, params.site, params.rest, req.path),
        ),
    }),
    route({
      method,
      path: '/hosted/:host{/*rest}',
      summary: "A page of a published site, on the site's own host or the sites domain",
      access: 'public',
      website: true,
      produces: 'text/html',
      params: z.object({ host: segment, rest }),
      handler: ({ params, req, res }) =>
        answer(ctx, req, res, headers, hostedRoot(ctx, params.host, params.rest ?? []), () => addressOnHost(ctx, params.host, params.rest, req.path)),
    }),
  ]);
}
