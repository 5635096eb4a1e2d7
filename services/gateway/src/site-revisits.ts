import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import type { publishing } from '@quire/proto';
import { byDocumentTags, decodeSharedAnswer, InvalidatedCache, SHARED_ANSWER_HEADER, type Logger, type RedisClient, type SharedView } from '@quire/runtime';

/*
 * Revisits of published pages that the gateway answers itself. When publishing answers a 304 to
 * a page every visitor gets alike (a public site without conditions), it says so, with the cache
 * tags of what the page is made of (@quire/runtime shared-answer): the gateway keeps that 304's
 * headers under the request's address, validator and encodings, and answers the same revisit
 * with them from then on, without a hop to publishing. The kept 304s go:
 *   - at once with any invalidation naming one of their tags (the site's version moves with every
 *     change of the site; content announces every write of a space, merges included, before it
 *     answers), as publishing's own caches do (design.md §12: broadcast on Redis);
 *   - after TTL_MS in any case, should a broadcast be missed; and nothing is kept while this
 *     replica's subscription is down;
 *   - a 304 publishing gives in the SETTLE_MS after an invalidation of one of its tags is not
 *     kept: publishing hears of the invalidation on its own subscription, and may not have yet.
 * Each revisit answered here is still a page view: the gateway gathers them and records them with
 * publishing (RecordSiteViews) a batch at a time, which tells them as the views it answers.
 */

/** 304s kept per gateway replica (each a few hundred bytes: the page's headers). */
const MAX_KEPT = 20_000;
/** The longest a 304 is answered here without publishing seeing a revisit of it. */
const TTL_MS = 10_000;
const SETTLE_MS = 1_000;
/** Views are recorded at most this long after the revisit, at most VIEWS_PER_CALL per call. */
const FLUSH_MS = 200;
const VIEWS_PER_CALL = 1_000;

/** Headers of the connection or of one answer only, not the page's: not kept. */
const NOT_KEPT = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'date',
  'set-cookie',
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  SHARED_ANSWER_HEADER,
]);

interface KnownRevisit {
  headers: Record<string, string | string[]>;
  view?: SharedView;
}

/** Where a forwarded revisit's answer may be kept (its key), and what the cache had seen when it went. */
const EXPECTED = Symbol('quire.siteRevisit');
type Revisiting = IncomingMessage & { [EXPECTED]?: { key: string; mark: number } };

export interface SiteRevisits {
  /** Answers a revisit of `path` (a published site's address, as publishing sees it) when a 304 is kept for it: true then. */
  answer(req: Request, res: Response, path: string): boolean;
  /** Notes a revisit of `path` about to go to publishing, whose 304 may be kept (learn). */
  expect(req: Request, path: string): void;
  /** Takes the shared-answer header off publishing's answer, and keeps the 304 it allows. */
  learn(req: IncomingMessage, answer: IncomingMessage): void;
  /** Records the views gathered so far. */
  flush(): Promise<void>;
  close(): void;
}

/** The address, validator and encodings a 304 answered: a revisit sending the same gets the same. */
function keyOf(req: Request, path: string): string | undefined {
  if (req.method !== 'GET') return undefined;
  const validator = req.headers['if-none-match'];
  if (!validator) return undefined;
  return `${path}\n${validator}\n${req.headers['accept-encoding'] ?? ''}`;
}

export function createSiteRevisits(options: {
  redis: RedisClient;
  logger: Logger;
  /** Publishing's RecordSiteViews. */
  record: (views: publishing.SiteView[]) => Promise<unknown>;
}): SiteRevisits {
  const { logger } = options;
  const kept = new InvalidatedCache<KnownRevisit>(options.redis, {
    name: 'site-revisits',
    max: MAX_KEPT,
    ttlMs: TTL_MS,
    settleMs: SETTLE_MS,
    select: byDocumentTags(),
    logger,
  });
  let gathered: publishing.SiteView[] = [];
  let timer: NodeJS.Timeout | undefined;

  async function flush(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    const views = gathered;
    gathered = [];
    for (let from = 0; from < views.length; from += VIEWS_PER_CALL) {
      const batch = views.slice(from, from + VIEWS_PER_CALL);
      await options.record(batch).catch((error: unknown) => logger.warn({ err: (error as Error).message, views: batch.length }, 'site views not recorded'));
    }
  }

  function count(req: Request, view: SharedView): void {
    gathered.push({
      ...view,
      referrer: req.get('referer') ?? '',
      ip: req.ip ?? '',
      userAgent: req.get('user-agent') ?? '',
      acceptLanguage: req.get('accept-language') ?? '',
    });
    if (gathered.length >= VIEWS_PER_CALL) void flush();
    else if (!timer) {
      timer = setTimeout(() => void flush(), FLUSH_MS);
      timer.unref();
    }
  }

  return {
    answer(req, res, path) {
      const key = keyOf(req, path);
      const known = key === undefined ? undefined : kept.lookup(key);
      if (!known) return false;
      res.writeHead(304, known.headers).end();
      if (known.view) count(req, known.view);
      return true;
    },
    expect(req, path) {
      const key = keyOf(req, path);
      if (key !== undefined) (req as Revisiting)[EXPECTED] = { key, mark: kept.mark() };
    },
    learn(req, answer) {
      const value = answer.headers[SHARED_ANSWER_HEADER];
      if (value === undefined) return;
      delete answer.headers[SHARED_ANSWER_HEADER];
      const expected = (req as Revisiting)[EXPECTED];
      if (!expected || answer.statusCode !== 304 || typeof value !== 'string' || answer.headers['set-cookie']) return;
      const shared = decodeSharedAnswer(value);
      if (!shared) return;
      const headers: Record<string, string | string[]> = {};
      for (const [name, header] of Object.entries(answer.headers)) if (header !== undefined && !NOT_KEPT.has(name)) headers[name] = header;
      kept.keep(expected.key, { headers, ...(shared.view ? { view: shared.view } : {}) }, expected.mark, shared.tags);
    },
    flush,
    close: () => kept.close(),
  };
}
