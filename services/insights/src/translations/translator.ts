import { PlaceholderMismatchError, restoreSegment, type Segment } from './segmenter';
import { ProviderError, type TranslationProvider, type TranslationRequest } from './providers';

/*
 * Segments through a provider: each distinct text once, as many texts per call as the provider
 * takes, a few calls at a time. A text whose placeholders did not come back exactly is asked
 * again on its own; if it still does not, the run fails (nothing is written half translated).
 */

/** Calls in flight at once, per run. */
const CONCURRENT_CALLS = 4;
/** Texts asked again one by one after a placeholder mismatch, at most (beyond, the provider is not fit). */
const MAX_SINGLE_RETRIES = 20;

export interface TranslatedTexts {
  /** The provider's translation of each segment text (placeholders included). */
  byText: Map<string, string>;
  /** Provider calls made. */
  calls: number;
}

/** Texts cut into batches of at most `maxItems` texts and `maxChars` characters (a longer text goes alone). */
export function batchesOf(texts: readonly string[], limits: { maxItems: number; maxChars: number }): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let chars = 0;
  for (const text of texts) {
    if (current.length && (current.length >= limits.maxItems || chars + text.length > limits.maxChars)) {
      batches.push(current);
      current = [];
      chars = 0;
    }
    current.push(text);
    chars += text.length;
  }
  if (current.length) batches.push(current);
  return batches;
}

async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(workers);
}

/** Whether the translation gives every placeholder of the segment back exactly once. */
function fits(segment: Segment, translated: string): boolean {
  try {
    restoreSegment(segment, translated);
    return true;
  } catch (error) {
    if (error instanceof PlaceholderMismatchError) return false;
    throw error;
  }
}

/** Translates the segments' texts (each distinct text once); throws ProviderError when the provider fails or keeps mangling placeholders. */
export async function translateSegments(provider: TranslationProvider, segments: readonly Segment[], request: TranslationRequest): Promise<TranslatedTexts> {
  const sample = new Map<string, Segment>();
  for (const segment of segments) if (!sample.has(segment.text)) sample.set(segment.text, segment);
  const texts = [...sample.keys()];
  const byText = new Map<string, string>();
  let calls = 0;
  const ask = async (batch: string[]) => {
    calls++;
    const answers = await provider.translate(batch, request);
    batch.forEach((text, i) => byText.set(text, answers[i]));
  };
  await inParallel(batchesOf(texts, provider.batch), CONCURRENT_CALLS, ask);

  const mangled = texts.filter((text) => !fits(sample.get(text)!, byText.get(text)!));
  if (mangled.length > MAX_SINGLE_RETRIES) {
    throw new ProviderError(
      `The translation provider (${provider.label}) did not give back the protected parts (code, links, expressions) of ${mangled.length} texts`,
    );
  }
  await inParallel(mangled, CONCURRENT_CALLS, (text) => ask([text]));
  const still = mangled.filter((text) => !fits(sample.get(text)!, byText.get(text)!));
  if (still.length) {
    throw new ProviderError(
      `The translation provider (${provider.label}) did not give back the protected parts (code, links, expressions) of ${still.length} text${still.length > 1 ? 's' : ''}, even asked again`,
    );
  }
  return { byText, calls };
}
