import { checkExpression, evaluateExpression, expressionText } from '@quire/runtime';
import type { RevisionDoc, RevisionPageDoc } from './revision-store';

/*
 * `{{ expression }}` in page markdown (query `evaluated` on page reads). Expressions are
 * parsed with jsep and evaluated by walking the AST (never eval). Supported: string,
 * number, boolean and null literals; member access by name or literal key; `!`, unary
 * `-`; `==` `!=` `===` `!==` `<` `<=` `>` `>=`; `&&` `||`; `a ? b : c`; `+` (adds two
 * numbers, otherwise joins as text). Names:
 *   space.vars.<name>, space.title, page.vars.<name>, page.title, page.path — deterministic;
 *   visitor.claims.<…> (no visitor on the API: always empty), now (ISO date-time) — not.
 * An expression that does not parse, uses anything else or is longer than
 * MAX_EXPRESSION_LENGTH stays in the markdown verbatim, and so does every expression inside
 * code (fenced blocks, indented or not, and `inline code`).
 */

export type EvaluationMode = boolean | 'deterministic-only';

export interface ExpressionInputs {
  space: { title: string; vars: Record<string, string> };
  page: { title: string; path: string; vars: Record<string, string> };
  /** The evaluation instant, ISO 8601 (one value for a whole response). */
  now: string;
}

const RULES = {
  roots: { space: true, page: true, visitor: false, now: false },
  binary: new Set(['==', '!=', '===', '!==', '<', '<=', '>', '>=', '&&', '||', '+']),
};
/** Longer expressions stay verbatim: it bounds the parser's and the evaluator's recursion depth. */
export const MAX_EXPRESSION_LENGTH = 1024;

/** The evaluated text of one expression, or null when it stays verbatim. */
export function evaluatePageExpression(source: string, inputs: ExpressionInputs, mode: Exclude<EvaluationMode, false>): string | null {
  if (source.length > MAX_EXPRESSION_LENGTH) return null;
  const checked = checkExpression(source, RULES);
  if (!checked.ok || (mode === 'deterministic-only' && !checked.deterministic)) return null;
  const scope = {
    space: { title: inputs.space.title, vars: { ...inputs.space.vars } },
    page: { title: inputs.page.title, path: inputs.page.path, vars: { ...inputs.page.vars } },
    visitor: { claims: {} },
    now: inputs.now,
  };
  return expressionText(evaluateExpression(checked.ast, scope));
}

/*
 * Code first (left verbatim), then expressions: fenced blocks (a fence never closed runs to
 * the end, as in CommonMark; a backtick fence's info string has no backtick), inline code
 * spans, {{ … }} (holding no `{{` nor `}}`). Every alternative stops at the first place it
 * can, so one pass over any markdown is linear: no `{{` or fence without its end rescans the rest.
 */
const SEGMENTS = /^[ \t]*(`{3,}(?=[^`\n]*$)|~{3,})[^\n]*(?:\n[\s\S]*?^[ \t]*\1[`~]*[ \t]*$|[\s\S]*)|`[^`\n]+`|\{\{((?:[^{}]|\{(?!\{)|\}(?!\}))*)\}\}/gm;

/** The markdown with its expressions evaluated (mode false: unchanged). */
export function evaluateMarkdown(markdown: string, inputs: ExpressionInputs, mode: EvaluationMode): string {
  if (mode === false || !markdown.includes('{{')) return markdown;
  return markdown.replace(SEGMENTS, (match: string, _fence: string | undefined, expression: string | undefined) => {
    if (expression === undefined) return match;
    return evaluatePageExpression(expression, inputs, mode) ?? match;
  });
}

/**
 * Evaluates bodies of one revision's pages as one response does: the space's title and the
 * revision's variables, each page's title, path (in `paths`, else its slug) and variables, and
 * one instant for every page.
 */
export function revisionEvaluator(
  spaceTitle: string,
  revision: Pick<RevisionDoc, 'variables'>,
  paths: Map<string, string>,
  mode: EvaluationMode,
): (page: Pick<RevisionPageDoc, 'id' | 'title' | 'slug' | 'variables'>, markdown: string) => string {
  const now = new Date().toISOString();
  const space = { title: spaceTitle, vars: revision.variables ?? {} };
  return (page, markdown) =>
    evaluateMarkdown(markdown, { space, page: { title: page.title, path: paths.get(page.id) ?? page.slug, vars: page.variables ?? {} }, now }, mode);
}
