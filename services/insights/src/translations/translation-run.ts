import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { content } from '@quire/proto';
import { HttpError, ServiceError } from '@quire/http';
import { LockBusyError, withRedisLock } from '@quire/runtime';
import type { InsightsContext } from '../kernel';
import { createTargetSpace, lookUpSpaces, readSpaceContent, writeSpacePages } from './content-client';
import { instructionsText } from './instructions';
import { ProviderError, translationProviderOf, type TranslationProvider, type TranslationRequest } from './providers';
import { assemble, countWords, segmentInline, segmentMarkdown, segmentsOf, type Segment } from './segmenter';
import { instructionsJson, type TranslatedPage, type TranslationDoc } from './translation-model';
import { findTranslation, findTranslationForRun, finishRun, markRunning, recordTargetSpace, type RunOutcome } from './translation-store';
import { translateSegments } from './translator';

/*
 * One run of a translation:
 *
 *  1. read the source space's pages, and the target's when a run made it;
 *  2. translate the pages that need it — every page on the first run, then only those whose
 *     source changed since the run that translated them (the hash of what was translated is kept
 *     per page), or that the target lost — titles, descriptions and bodies, segment by segment;
 *  3. create the target space on the first run (CreateSpace, idempotent by `translation:<id>`:
 *     a job run again never makes two), in the source's collection, with the language set;
 *  4. write the target's whole page tree at once (WriteSpacePages): the source's tree, the pages
 *     translated with their new content, the others without content so the target keeps its own
 *     version of them (edits made there by hand included); pages removed from the source are
 *     removed, pages added to the target by hand are kept. When the target moved meanwhile
 *     (ABORTED) its pages are read again and the tree is written again, with the translations
 *     already made.
 *
 * Everything is translated before anything is written: a provider that fails leaves the target
 * as it was. Runs of one translation never overlap (a lock per translation; a job that finds it
 * busy comes back later), and a job whose run was covered by a run that started after it was
 * asked has nothing left to do.
 */

/** Writes tried when the target keeps moving under the run. */
const MAX_WRITE_ATTEMPTS = 5;
/** The run lock outlives a crashed holder by this much past its last renewal. */
const RUN_LOCK_MS = 60_000;

/** A run that cannot go on, for a reason the organization can act on (shown as the translation's failure). */
class RunFailure extends Error {}

/** The translation was deleted during the run: nothing more is made for it. */
class RunCancelled extends Error {}

export interface RunJob {
  translationId: string;
  /** The run number asked (runsRequested after the request). */
  run: number;
  /** The translation's organization: its runs take turns with other organizations' (absent in jobs queued before it was added). */
  organizationId?: string;
}

type ContentPage = content.ContentPage;
interface TranslatedContent {
  title: string;
  description: string;
  body: string;
}

/** What a source page is, for telling whether it changed since it was translated. */
export function sourceHash(page: ContentPage): string {
  return createHash('sha256')
    .update(JSON.stringify([page.title, page.description, page.bodyHash, page.kind, page.emoji, page.hidden]))
    .digest('base64url');
}

/** The target space's title: the source's, followed by the language (spaces' titles hold 50 characters). */
function targetTitle(sourceTitle: string, language: string): string {
  const suffix = ` (${language})`;
  return `${sourceTitle.slice(0, 50 - suffix.length).trimEnd()}${suffix}`;
}

/** Pages translated by one provider for one run, each page's segments in one go with the others'. */
class PageTranslator {
  readonly translated = new Map<string, TranslatedContent>();
  words = 0;

  constructor(
    private readonly provider: TranslationProvider,
    private readonly request: TranslationRequest,
  ) {}

  async translate(pages: readonly ContentPage[]): Promise<void> {
    if (pages.length === 0) return;
    const work = pages.map((page) => ({
      page,
      title: segmentInline(page.title),
      description: segmentInline(page.description),
      // A computed page's body is generated in the target too: only its title and description are translated.
      body: page.kind === 'computed' ? [] : segmentMarkdown(page.body),
    }));
    const segments = work.flatMap((item) => [...segmentsOf(item.title), ...segmentsOf(item.description), ...segmentsOf(item.body)]);
    const { byText } = await translateSegments(this.provider, segments, this.request);
    const fill = (segment: Segment) => byText.get(segment.text)!;
    for (const item of work) {
      this.translated.set(item.page.id, { title: assemble(item.title, fill), description: assemble(item.description, fill), body: assemble(item.body, fill) });
    }
    this.words += segments.reduce((sum, segment) => sum + countWords(segment), 0);
  }
}

const keptPage = (id: string, parentId: string): content.PageWrite => ({
  id,
  parentId,
  hasContent: false,
  title: '',
  description: '',
  body: '',
  slug: '',
  emoji: '',
  hidden: false,
});

/** The target's new page tree (see step 4 above). */
function pageWrites(
  source: content.GetSpaceContentResponse,
  target: content.GetSpaceContentResponse,
  translated: ReadonlyMap<string, TranslatedContent>,
  previous: ReadonlyMap<string, string>,
): content.PageWrite[] {
  const writes: content.PageWrite[] = [];
  const listed = new Set<string>();
  for (const page of source.pages) {
    const text = translated.get(page.id);
    writes.push(
      text
        ? {
            id: page.id,
            parentId: page.parentId,
            hasContent: true,
            ...text,
            slug: page.slug,
            emoji: page.emoji,
            hidden: page.hidden,
            // A translated page is indexed (or not), and laid out, as its source page is.
            noIndex: page.noIndex,
            noRobotsIndex: page.noRobotsIndex,
            layout: page.layout,
          }
        : keptPage(page.id, page.parentId),
    );
    listed.add(page.id);
  }
  for (const page of target.pages) {
    if (listed.has(page.id) || previous.has(page.id)) continue;
    writes.push(keptPage(page.id, listed.has(page.parentId) ? page.parentId : ''));
    listed.add(page.id);
  }
  return writes;
}

interface SpaceTranslated {
  targetSpaceId: string;
  targetRevisionId: string;
  pages: TranslatedPage[];
  translatedPages: string[];
  words: number;
}

async function translateSpace(ctx: InsightsContext, doc: TranslationDoc): Promise<SpaceTranslated> {
  const provider = translationProviderOf(ctx.config);
  const source = await readSpaceContent(ctx, doc.sourceSpaceId);
  if (!source) throw new RunFailure('The source space no longer exists (deleted or purged)');
  const targetGone = () => new RunFailure('The target space was deleted: restore it from the trash, or delete this translation and create it again');
  let target = doc.targetSpaceId ? await readSpaceContent(ctx, doc.targetSpaceId) : null;
  if (doc.targetSpaceId && !target) throw targetGone();

  const previous = new Map(doc.pages.map((page) => [page.id, page.hash]));
  const hashes = new Map(source.pages.map((page) => [page.id, sourceHash(page)]));
  const translator = new PageTranslator(provider, {
    source: doc.sourceLanguage,
    target: doc.language,
    instructions: instructionsText(instructionsJson.read(doc.instructions)),
  });
  const inTarget = new Set(target?.pages.map((page) => page.id) ?? []);
  await translator.translate(source.pages.filter((page) => !inTarget.has(page.id) || previous.get(page.id) !== hashes.get(page.id)));

  let targetSpaceId = doc.targetSpaceId;
  if (!targetSpaceId || !target) {
    if (!(await findTranslation(ctx, doc.organizationId, doc._id))) throw new RunCancelled();
    const sourceSpace = (await lookUpSpaces(ctx, [doc.sourceSpaceId], '')).get(doc.sourceSpaceId);
    targetSpaceId = await createTargetSpace(ctx, {
      organizationId: doc.organizationId,
      title: targetTitle(source.title, doc.language),
      emoji: sourceSpace?.emoji ?? '',
      language: doc.language,
      createdBy: doc.createdBy,
      parentId: sourceSpace?.parentId ?? '',
      copyRevisionId: '',
      idempotencyKey: `translation:${doc._id}`,
    });
    await recordTargetSpace(ctx, doc._id, targetSpaceId);
    target = await readSpaceContent(ctx, targetSpaceId);
    if (!target) throw targetGone();
  }

  for (let attempt = 1; ; attempt++) {
    // Pages the target lost meanwhile cannot be kept as they are there: they are translated (usually none).
    const present = new Set(target.pages.map((page) => page.id));
    await translator.translate(source.pages.filter((page) => !translator.translated.has(page.id) && !present.has(page.id)));
    const written = await writeSpacePages(ctx, {
      spaceId: targetSpaceId,
      expectedRevisionId: target.revisionId,
      pages: pageWrites(source, target, translator.translated, previous),
      userId: doc.runBy,
    });
    if (written !== 'moved') {
      return {
        targetSpaceId,
        targetRevisionId: written.revisionId,
        pages: source.pages.map((page) => ({
          id: page.id,
          hash: translator.translated.has(page.id) ? hashes.get(page.id)! : (previous.get(page.id) ?? hashes.get(page.id)!),
        })),
        translatedPages: [...translator.translated.keys()],
        words: translator.words,
      };
    }
    if (attempt >= MAX_WRITE_ATTEMPTS) throw new RunFailure('The target space kept changing during the run: run the translation again');
    target = await readSpaceContent(ctx, targetSpaceId);
    if (!target) throw targetGone();
  }
}

/** Why the run failed, in words safe to show (provider failures never carry its address or key). */
function failureReason(ctx: InsightsContext, doc: TranslationDoc, error: unknown): string {
  if (error instanceof RunFailure || error instanceof ProviderError) return error.message;
  if (error instanceof ServiceError) return `The content service failed: ${error.details}`;
  if (error instanceof HttpError) return error.message;
  ctx.logger.error({ err: error, translationId: doc._id }, 'translation run failed unexpectedly');
  return 'The run failed on the platform side: run the translation again';
}

/** Runs the translation once, unless a run since asked covered this job; the whole run under the translation's run lock. */
async function runOnce(ctx: InsightsContext, job: RunJob): Promise<void> {
  const doc = await findTranslationForRun(ctx, job.translationId);
  if (!doc) return;
  // Covered by a run started after this one was asked — unless that run died (its status left running).
  if (doc.runsCovered >= job.run && doc.status !== 'running') return;
  if (!(await markRunning(ctx, doc))) return;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const stats = { ...doc.stats, runs: doc.stats.runs + 1 };
  let outcome: RunOutcome;
  try {
    const result = await translateSpace(ctx, doc);
    const ms = elapsed();
    const newPages = result.translatedPages.filter((id) => !doc.pages.some((page) => page.id === id)).length;
    outcome = {
      ok: true,
      targetSpaceId: result.targetSpaceId,
      targetRevisionId: result.targetRevisionId,
      pages: result.pages,
      stats: {
        ...stats,
        totalWords: stats.totalWords + result.words,
        totalPages: stats.totalPages + newPages,
        totalDurationMs: stats.totalDurationMs + ms,
        latestRunDurationMs: ms,
        latestPages: result.translatedPages.length,
        latestWords: result.words,
      },
    };
  } catch (error) {
    if (error instanceof RunCancelled) return;
    const ms = elapsed();
    const reason = failureReason(ctx, doc, error);
    ctx.logger.warn({ translationId: doc._id, reason }, 'translation run failed');
    outcome = { ok: false, reason, stats: { ...stats, totalDurationMs: stats.totalDurationMs + ms, latestRunDurationMs: ms, latestPages: 0, latestWords: 0 } };
  }
  await finishRun(ctx, doc._id, doc.runsRequested, outcome);
}

/** Processes one run job: 'busy' when another run of the translation holds it (the job is to come back later). */
export async function processRunJob(ctx: InsightsContext, job: RunJob): Promise<'done' | 'busy'> {
  try {
    await withRedisLock(ctx.redis, `translation-run:${job.translationId}`, () => runOnce(ctx, job), {
      ttlMs: RUN_LOCK_MS,
      renewEveryMs: RUN_LOCK_MS / 3,
      waitMs: 0,
      logger: ctx.logger,
    });
    return 'done';
  } catch (error) {
    if (error instanceof LockBusyError) return 'busy';
    throw error;
  }
}
