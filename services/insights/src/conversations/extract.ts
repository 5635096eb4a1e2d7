import similarity from 'wink-nlp/utilities/similarity';
import { nlp, sentencesOf, termsOf, type Sentence } from './nlp';

/*
 * Issue extraction, default pipeline: the problems and unanswered questions the user raised,
 * each with a title and a summary made of the conversation's own sentences (nothing invented).
 *
 * The user's messages are cut into sentences; those asking something or saying something does
 * not work, with content terms, are the issue's sentences. They stay one issue unless the user
 * clearly moves on ("Also, …", or a new message after an answer) to something that shares
 * (almost) no term with what came before: then that is another issue.
 */

/** What extraction reads of a conversation. */
export interface ConversationText {
  subject?: string | null;
  parts: ReadonlyArray<{ role: string; body: string }>;
}

/** An issue found in a conversation, before clustering. */
export interface ExtractedIssue {
  title: string;
  summary: string;
  /** Its content terms (lemmas, repeats kept): what clustering compares. */
  terms: string[];
}

export const MAX_TITLE_LENGTH = 100;
export const MAX_SUMMARY_LENGTH = 500;
/** More issues than this in one conversation are folded into the last one. */
export const MAX_ISSUES_PER_CONVERSATION = 5;
/** Below this likeness (cosine of their terms), a sentence that changes the topic starts another issue. */
const SAME_TOPIC = 0.2;

/** `text` cut to `max` characters at a word boundary, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/** How alike two lists of terms are (cosine of their bags of words, winkNLP's). */
export function termLikeness(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const { as } = nlp();
  return similarity.bow.cosine(as.bow([...a]), as.bow([...b]));
}

interface Candidate extends Sentence {
  /** First sentence of a user message that follows another message. */
  newMessage: boolean;
}

/** The sentences of the user's messages (all messages when no part is the user's). */
function userSentences(conversation: ConversationText): Candidate[] {
  const userParts = conversation.parts.filter((part) => part.role === 'user');
  const parts = userParts.length > 0 ? userParts : conversation.parts;
  return parts.flatMap((part, index) => sentencesOf(part.body).map((sentence, i) => ({ ...sentence, newMessage: index > 0 && i === 0 })));
}

/** The sentences that raise something: questions and problems with content terms, else what the first message is about. */
function raisingSentences(sentences: Candidate[]): Candidate[] {
  const raising = sentences.filter((sentence) => sentence.terms.length > 0 && (sentence.question || sentence.problem));
  if (raising.length > 0) return raising;
  return sentences.filter((sentence) => sentence.terms.length > 0).slice(0, 3);
}

/** Sentences grouped into issues: a new group only where the user clearly changes the topic. */
function groupByTopic(sentences: Candidate[]): Candidate[][] {
  const groups: Candidate[][] = [];
  for (const sentence of sentences) {
    const current = groups[groups.length - 1];
    const changesTopic =
      current !== undefined &&
      (sentence.shift || sentence.newMessage) &&
      sentence.terms.length >= 2 &&
      termLikeness(
        sentence.terms,
        current.flatMap((s) => s.terms),
      ) < SAME_TOPIC;
    if (!current || (changesTopic && groups.length < MAX_ISSUES_PER_CONVERSATION)) groups.push([sentence]);
    else current.push(sentence);
  }
  return groups;
}

/** The issue's title: the subject for the first issue when it says something, else its first question, else its first sentence. */
function titleOf(group: Candidate[], subject: string | undefined): string {
  if (subject) return clip(subject, MAX_TITLE_LENGTH);
  const lead = group.find((sentence) => sentence.question) ?? group[0];
  return clip(lead.text, MAX_TITLE_LENGTH);
}

/** The issues of a conversation (none when it raises nothing: greetings, thanks). */
export function extractIssues(conversation: ConversationText): ExtractedIssue[] {
  const subject = conversation.subject?.trim() || undefined;
  const subjectTerms = subject ? termsOf(subject) : [];
  const groups = groupByTopic(raisingSentences(userSentences(conversation)));
  if (groups.length === 0) {
    if (!subject || subjectTerms.length === 0) return [];
    return [{ title: clip(subject, MAX_TITLE_LENGTH), summary: clip(subject, MAX_SUMMARY_LENGTH), terms: subjectTerms }];
  }
  return groups.map((group, index) => {
    const useSubject = index === 0 && subjectTerms.length > 0 ? subject : undefined;
    return {
      title: titleOf(group, useSubject),
      summary: clip(group.map((sentence) => sentence.text).join(' '), MAX_SUMMARY_LENGTH),
      terms: [...(useSubject ? subjectTerms : []), ...group.flatMap((sentence) => sentence.terms)],
    };
  });
}
