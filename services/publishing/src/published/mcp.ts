import type { Request, Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import type { PublishingContext } from '../domain/context';
import { pageMarkdown, type ListedPage } from './agents';
import { searchSite } from './search';
import type { SiteView } from './site-view';

/*
 * A published site's Model Context Protocol endpoint, `<site>/~/mcp` (streamable HTTP, built on the
 * official SDK), read-only: a tool to search the site, one to read a page as markdown, and each
 * page as a resource. Stateless: each request gets a server of its own, made from the view of the
 * visitor it comes from, so it holds exactly what that visitor may read (paths.ts admits the
 * visitor first, with the site's share key, visitor token or sign-in, and offers it only while the
 * site includes agents) at the site's current revisions. Nothing is kept between requests.
 */

/** Search results given per call (the site's search page shows the same). */
const SEARCH_RESULTS = 20;

function siteServer(ctx: PublishingContext, view: SiteView, pages: ListedPage[]): McpServer {
  const origin = new URL(view.address.base).origin;
  const server = new McpServer(
    { name: `quire-site-${view.site._id}`, title: view.site.title, version: '1.0.0' },
    { instructions: `The documentation site "${view.site.title}": search it, then read its pages as markdown.` },
  );
  server.registerTool(
    'search',
    {
      title: `Search ${view.site.title}`,
      description: 'Searches the documentation site; answers its matching pages, each with its address (give it to read_page) and the matching sections.',
      inputSchema: { query: z.string().trim().min(1).max(200).describe('What to look for') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query }) => {
      const results = (await searchSite(ctx, view, query)).slice(0, SEARCH_RESULTS);
      const text = results.length
        ? results
            .map((result) =>
              [
                `- [${result.title}](${origin}${result.href})${result.ancestors ? ` (${result.ancestors})` : ''}`,
                ...result.sections.map((section) => `  - ${section.title}: ${section.excerpt.replace(/\s+/g, ' ').trim()}`),
              ].join('\n'),
            )
            .join('\n')
        : `No page of the site matches "${query}".`;
      return { content: [{ type: 'text', text }] };
    },
  );
  const byAddress = new Map<string, ListedPage>();
  for (const listed of pages) {
    byAddress.set(listed.url, listed);
    byAddress.set(listed.markdown, listed);
  }
  server.registerTool(
    'read_page',
    {
      title: 'Read a page',
      description: "Reads a page of the site as markdown, by its address (as search answers it, or the page's .md address).",
      inputSchema: { url: z.string().min(1).max(2048).describe("The page's address on the site") },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ url }) => {
      const listed = byAddress.get(url.replace(/#.*$/, '')) ?? byAddress.get(url.replace(/[?#].*$/, ''));
      if (!listed) return { isError: true, content: [{ type: 'text', text: `No page of the site is at ${url}.` }] };
      return { content: [{ type: 'text', text: pageMarkdown(listed.page) }] };
    },
  );
  for (const { page, markdown } of pages)
    server.registerResource(
      page.path || page.id,
      markdown,
      { title: page.title, ...(page.description ? { description: page.description } : {}), mimeType: 'text/markdown' },
      async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: pageMarkdown(page) }] }),
    );
  return server;
}

/** Answers one MCP request (POST; GET and DELETE get the transport's 405 in this stateless mode). */
export async function serveMcp(ctx: PublishingContext, view: SiteView, pages: ListedPage[], req: Request, res: Response): Promise<void> {
  const server = siteServer(ctx, view, pages);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}
