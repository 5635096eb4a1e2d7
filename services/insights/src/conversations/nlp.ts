import winkNLP, { type ItemSentence, type ItsFunction, type WinkMethods } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';

/*
 * The language layer of the default pipeline, all of it winkNLP's (wink-eng-lite-web-model):
 * sentence boundaries, tokens and their types, stop words, negation, parts of speech and
 * lemmas. What this file adds is only the choice of what counts as a content term and as a
 * sentence raising a problem or a question.
 */

let instance: WinkMethods | undefined;
/** The winkNLP instance (the model loads once per process, on first use). */
export function nlp(): WinkMethods {
  instance ??= winkNLP(model);
  return instance;
}

/** Parts of speech that carry what a message is about. */
const CONTENT_POS = new Set(['NOUN', 'PROPN', 'VERB', 'ADJ']);

/**
 * Words every support conversation uses whatever its topic (greetings, politeness, the words
 * for "a problem" itself): never a term, so they neither make two topics look alike nor end
 * up in a label. winkNLP's stop words (pronouns, auxiliaries, articles…) are dropped before.
 */
// prettier-ignore
const CONVERSATION_FILLER = new Set([
  'hi', 'hello', 'hey', 'thanks', 'thank', 'please', 'regard', 'cheer', 'cheers', 'sorry', 'dear', 'team', 'support',
  'help', 'issue', 'problem', 'question', 'trouble', 'thing', 'way', 'lot', 'bit', 'anyone', 'someone', 'guy',
  'folk', 'get', 'go', 'try', 'want', 'need', 'know', 'think', 'seem', 'look', 'see', 'make', 'let', 'say', 'tell',
  'ask', 'work', 'use', 'do', 'happen', 'keep', 'take', 'come', 'give', 'find', 'wonder', 'appreciate', 'hope',
  'able', 'time', 'today', 'yesterday', 'day', 'week', 'morning', 'moment', 'now', 'again', 'still', 'just',
  'really', 'good', 'great', 'nice', 'fine', 'okay', 'ok', 'sure', 'quick', 'new', 'same', 'other', 'last', 'first',
  'idea', 'advice', 'reply', 'answer', 'info', 'information', 'detail', 'hour', 'minute',
]);

/** Lemmas of words saying something goes wrong (with negation, what makes a sentence a problem). */
// prettier-ignore
const PROBLEM_WORDS = new Set([
  'error', 'fail', 'failure', 'crash', 'break', 'broken', 'bug', 'wrong', 'unable', 'stuck', 'miss', 'missing',
  'lose', 'lost', 'slow', 'timeout', 'freeze', 'hang', 'disappear', 'reject', 'deny', 'block', 'invalid',
  'incorrect', 'blank', 'empty', 'corrupt', 'duplicate', 'never', 'cannot', 'nothing', 'confuse', 'confusing',
  'unclear', 'strange', 'weird', 'problem', 'issue', 'trouble', 'frustrate', 'annoy', 'expire', 'refuse', 'glitch',
]);

/** Words opening a question without a question mark ("how do I…", "is there…"). */
// prettier-ignore
const QUESTION_OPENERS = new Set([
  'how', 'why', 'what', 'where', 'when', 'which', 'who', 'can', 'could', 'is', 'are', 'do', 'does', 'did', 'should',
  'would', 'will', 'may', 'any', 'anyone',
]);

/** Words opening a sentence that moves on to another topic ("Also, …", "Another thing: …"). */
const TOPIC_SHIFT_OPENERS = new Set(['also', 'another', 'additionally', 'separately', 'besides', 'unrelated', 'second', 'secondly', 'plus']);

/** One sentence as the pipeline sees it. */
export interface Sentence {
  /** The sentence as written. */
  text: string;
  /** Its content terms (lemmas), in order, repeats kept. */
  terms: string[];
  /** It asks something. */
  question: boolean;
  /** It says something does not work (a negation or a word for a failure). */
  problem: boolean;
  /** It opens with a word that changes the topic ("also", "another"…). */
  shift: boolean;
}

/** A lemma as a term: lower case, hyphens and dots dropped ("e-mail" → "email"), or null when it is not one. */
function termOf(lemma: string): string | null {
  const term = lemma.toLowerCase().replace(/[-.'’]/g, '');
  if (term.length < 2 || term.length > 40 || !/^[\p{L}][\p{L}\p{N}]*$/u.test(term)) return null;
  return CONVERSATION_FILLER.has(term) ? null : term;
}

/** The sentences of a text with their terms and what they say (question, problem, topic shift). */
export function sentencesOf(text: string): Sentence[] {
  const { readDoc, its } = nlp();
  const doc = readDoc(text);
  const sentences: Sentence[] = [];
  doc.sentences().each((sentence: ItemSentence) => {
    const tokens = sentence.tokens();
    const types = tokens.out(its.type);
    const stop = tokens.out(its.stopWordFlag);
    const pos = tokens.out(its.pos);
    const lemmas = tokens.out(its.lemma as unknown as ItsFunction<string>);
    const negated = tokens.out(its.negationFlag);
    const normals = tokens.out(its.normal);
    const terms: string[] = [];
    let problem = false;
    for (let i = 0; i < lemmas.length; i += 1) {
      const lemma = String(lemmas[i]).toLowerCase();
      if (normals[i] === 'not' || normals[i] === "n't" || negated[i] || PROBLEM_WORDS.has(lemma)) problem = true;
      if (types[i] !== 'word' || stop[i] || !CONTENT_POS.has(String(pos[i]))) continue;
      const term = termOf(lemma);
      if (term) terms.push(term);
    }
    const words = normals.filter((_: unknown, i: number) => types[i] === 'word');
    const raw = sentence.out().trim();
    sentences.push({
      text: raw,
      terms,
      question: raw.endsWith('?') || QUESTION_OPENERS.has(String(words[0] ?? '')),
      problem,
      shift: TOPIC_SHIFT_OPENERS.has(String(words[0] ?? '')),
    });
  });
  return sentences;
}

/** The content terms of a text (lemmas, in order): what a title or a summary from a provider is about. */
export function termsOf(text: string): string[] {
  return sentencesOf(text).flatMap((sentence) => sentence.terms);
}
