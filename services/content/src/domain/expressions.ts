import jsep = require('jsep');

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

const DETERMINISTIC_ROOTS = new Set(['space', 'page']);
const NON_DETERMINISTIC_ROOTS = new Set(['visitor', 'now']);
const BINARY = new Set(['==', '!=', '===', '!==', '<', '<=', '>', '>=', '&&', '||', '+']);
const UNARY = new Set(['!', '-']);
/** Longer expressions stay verbatim: it bounds the parser's and the evaluator's recursion depth. */
export const MAX_EXPRESSION_LENGTH = 1024;
/** Keys that would reach into prototypes. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

interface Analysis {
  supported: boolean;
  deterministic: boolean;
}

function memberKey(node: jsep.MemberExpression): string | number | undefined {
  if (!node.computed && node.property.type === 'Identifier') return (node.property as jsep.Identifier).name;
  if (node.computed && node.property.type === 'Literal') {
    const value = (node.property as jsep.Literal).value;
    if (typeof value === 'string' || typeof value === 'number') return value;
  }
  return undefined;
}

/** Whether the AST only uses what is supported, and whether all its inputs are deterministic. */
function analyse(node: jsep.Expression): Analysis {
  const unsupported = { supported: false, deterministic: false };
  const both = (...parts: Analysis[]): Analysis => ({ supported: parts.every((p) => p.supported), deterministic: parts.every((p) => p.deterministic) });
  switch (node.type) {
    case 'Literal':
      return (node as jsep.Literal).value instanceof RegExp ? unsupported : { supported: true, deterministic: true };
    case 'Identifier': {
      const name = (node as jsep.Identifier).name;
      if (DETERMINISTIC_ROOTS.has(name)) return { supported: true, deterministic: true };
      if (NON_DETERMINISTIC_ROOTS.has(name)) return { supported: true, deterministic: false };
      return unsupported;
    }
    case 'MemberExpression': {
      const member = node as jsep.MemberExpression;
      const key = memberKey(member);
      if (key === undefined || FORBIDDEN_KEYS.has(String(key))) return unsupported;
      return analyse(member.object);
    }
    case 'UnaryExpression': {
      const unary = node as jsep.UnaryExpression;
      return UNARY.has(unary.operator) ? analyse(unary.argument) : unsupported;
    }
    case 'BinaryExpression':
    case 'LogicalExpression': {
      const binary = node as jsep.BinaryExpression;
      return BINARY.has(binary.operator) ? both(analyse(binary.left), analyse(binary.right)) : unsupported;
    }
    case 'ConditionalExpression': {
      const conditional = node as jsep.ConditionalExpression;
      return both(analyse(conditional.test), analyse(conditional.consequent), analyse(conditional.alternate));
    }
    default:
      return unsupported;
  }
}

type Value = unknown;

function evaluate(node: jsep.Expression, scope: Record<string, Value>): Value {
  switch (node.type) {
    case 'Literal':
      return (node as jsep.Literal).value;
    case 'Identifier': {
      const name = (node as jsep.Identifier).name;
      return Object.hasOwn(scope, name) ? scope[name] : undefined;
    }
    case 'MemberExpression': {
      const member = node as jsep.MemberExpression;
      const target = evaluate(member.object, scope);
      const key = memberKey(member);
      if (target === null || typeof target !== 'object' || key === undefined) return undefined;
      return Object.hasOwn(target, key) ? (target as Record<string | number, Value>)[key] : undefined;
    }
    case 'UnaryExpression': {
      const unary = node as jsep.UnaryExpression;
      const value = evaluate(unary.argument, scope);
      return unary.operator === '!' ? !value : typeof value === 'number' ? -value : undefined;
    }
    case 'ConditionalExpression': {
      const conditional = node as jsep.ConditionalExpression;
      return evaluate(conditional.test, scope) ? evaluate(conditional.consequent, scope) : evaluate(conditional.alternate, scope);
    }
    case 'BinaryExpression':
    case 'LogicalExpression': {
      const binary = node as jsep.BinaryExpression;
      if (binary.operator === '&&') return evaluate(binary.left, scope) && evaluate(binary.right, scope);
      if (binary.operator === '||') return evaluate(binary.left, scope) || evaluate(binary.right, scope);
      const left = evaluate(binary.left, scope);
      const right = evaluate(binary.right, scope);
      switch (binary.operator) {
        case '+':
          return typeof left === 'number' && typeof right === 'number' ? left + right : render(left) + render(right);
        case '==':
          return looseEquals(left, right);
        case '!=':
          return !looseEquals(left, right);
        case '===':
          return left === right;
        case '!==':
          return left !== right;
        default:
          return compare(binary.operator, left, right);
      }
    }
    default:
      return undefined;
  }
}

/** `==` without JavaScript's coercions: null and a missing value are equal, otherwise strict. */
function looseEquals(left: Value, right: Value): boolean {
  if (left == null || right == null) return left == null && right == null;
  return left === right;
}

/** Ordering only between two numbers or two strings; anything else is false. */
function compare(operator: string, left: Value, right: Value): boolean {
  const comparable = (typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string');
  if (!comparable) return false;
  const [a, b] = [left as number | string, right as number | string];
  if (operator === '<') return a < b;
  if (operator === '<=') return a <= b;
  if (operator === '>') return a > b;
  return a >= b;
}

/** A value as text in the markdown: missing values and objects read as nothing. */
function render(value: Value): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** The evaluated text of one expression, or null when it stays verbatim. */
export function evaluateExpression(source: string, inputs: ExpressionInputs, mode: Exclude<EvaluationMode, false>): string | null {
  if (source.length > MAX_EXPRESSION_LENGTH) return null;
  let ast: jsep.Expression;
  try {
    ast = jsep(source);
  } catch {
    return null;
  }
  if (!ast) return null;
  const analysis = analyse(ast);
  if (!analysis.supported || (mode === 'deterministic-only' && !analysis.deterministic)) return null;
  const scope = {
    space: { title: inputs.space.title, vars: { ...inputs.space.vars } },
    page: { title: inputs.page.title, path: inputs.page.path, vars: { ...inputs.page.vars } },
    visitor: { claims: {} },
    now: inputs.now,
  };
  return render(evaluate(ast, scope));
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
    return evaluateExpression(expression, inputs, mode) ?? match;
  });
}
