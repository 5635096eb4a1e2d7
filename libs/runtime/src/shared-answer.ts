import { z } from 'zod';

/*
 * What publishing tells the gateway about a published page that every visitor gets alike (a
 * public site whose sections and variants have no conditions): the documents it was made from,
 * as cache tags (documentTag), and the view to count for it. The gateway keeps the page's 304
 * under those tags and answers the page's revisits itself until an invalidation names one of
 * them, recording each one's view with publishing (RecordSiteViews). The header travels from
 * publishing to the gateway only: the gateway takes it off every answer.
 */

/** The header of publishing's answer that carries it (base64url JSON). */
export const SHARED_ANSWER_HEADER = 'x-quire-shared';

const id = z.string().min(1).max(100);

export const sharedAnswerSchema = z.object({
  tags: z.array(z.string().min(1).max(300)).min(1).max(200),
  /** The page view each revisit stands for (absent: an answer that is no view, such as a page's markdown). */
  view: z.object({ organizationId: id, siteId: id, siteSpaceId: id, spaceId: id, pageId: id, url: z.string().min(1).max(8192) }).optional(),
});
export type SharedAnswer = z.infer<typeof sharedAnswerSchema>;
export type SharedView = NonNullable<SharedAnswer['view']>;

export const encodeSharedAnswer = (answer: SharedAnswer): string => Buffer.from(JSON.stringify(answer)).toString('base64url');

/** The answer a header value carries; undefined when it is not one. */
export function decodeSharedAnswer(value: string): SharedAnswer | undefined {
  try {
    const parsed = sharedAnswerSchema.safeParse(JSON.parse(Buffer.from(value, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
