// jsep's typings declare `export =`: this is the import form TypeScript gives it under nodenext.
// eslint-disable-next-line @typescript-eslint/no-require-imports
import jsep = require('jsep');

/*
 * Small JavaScript-like expressions (site conditions, `{{ … }}` in page markdown), parsed
 * with jsep and evaluated by walking the AST — never eval. Each use names the roots an
 * expression may start from (and whether each is deterministic) and its binary operators;
 * everything else (calls, regular expressions, computed keys, prototype keys, compound
 * expressions) is refused with a message saying why.
 */

export type Expression = jsep.Expression;

export interface ExpressionRules {
  /** Root name → whether its value is deterministic (the same on every evaluation). */
  roots: Readonly<Record<string, boolean>>;
  /** Binary and logical operators allowed (`+` adds two numbers, otherwise joins as text). */
  binary: ReadonlySet<string>;
}

export type ExpressionCheck = { ok: true; ast: Expression; deterministic: boolean } | { ok: false; message: string };

const UNARY = new Set(['!', '-']);
/** Keys that would reach into prototypes: refused outright. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

function memberKey(node: jsep.MemberExpression): string | number | undefined {
  if (!node.computed && node.property.type === 'Identifier') return (node.property as jsep.Identifier).name;
  if (node.computed && node.property.type === 'Literal') {
    const value = (node.property as jsep.Literal).value;
    if (typeof value === 'string' || typeof value === 'number') return value;
  }
  return undefined;
}

/** Parses and checks an expression; the message says what is wrong (fit to show API callers). */
export function checkExpression(source: string, rules: ExpressionRules): ExpressionCheck {
  if (nestingOf(source) > MAX_NESTING) return { ok: false, message: `nested more than ${MAX_NESTING} levels deep` };
  let ast: Expression;
  try {
    ast = jsep(source);
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, message: `nested more than ${MAX_NESTING} levels deep` };
    return { ok: false, message: `not a valid expression (${(error as Error).message})` };
  }
  if (!ast) return { ok: false, message: 'must not be empty' };
  // The checks and the evaluation below walk the tree recursively: bound its depth first.
  if (treeDepth(ast) > MAX_TREE_DEPTH) return { ok: false, message: `nested more than ${MAX_TREE_DEPTH} levels deep` };
  const state = { deterministic: true };
  const problem = unsupported(ast, rules, state);
  return problem ? { ok: false, message: problem } : { ok: true, ast, deterministic: state.deterministic };
}

/** Brackets and unary operators nest the parser's recursion; conditions never need many. */
const MAX_NESTING = 32;
/** Depth of the parsed tree (a chain of `a && b && …` is as deep as it is long). */
const MAX_TREE_DEPTH = 256;

/** The deepest run of open brackets plus stacked unary operators, outside string literals. */
function nestingOf(source: string): number {
  let depth = 0;
  let deepest = 0;
  let unaryRun = 0;
  let quote: string | undefined;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (quote) {
      if (char === '\\') i++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    else if (char === '(' || char === '[') depth++;
    else if (char === ')' || char === ']') depth = Math.max(0, depth - 1);
    if (char === '!' || char === '-') unaryRun++;
    else if (char !== ' ') unaryRun = 0;
    deepest = Math.max(deepest, depth + unaryRun);
  }
  return deepest;
}

function treeDepth(root: Expression): number {
  let deepest = 0;
  const pending: Array<[Expression, number]> = [[root, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_TREE_DEPTH) return deepest;
    for (const value of Object.values(node)) {
      const children = Array.isArray(value) ? value : [value];
      for (const child of children)
        if (child && typeof child === 'object' && typeof (child as Expression).type === 'string') pending.push([child as Expression, depth + 1]);
    }
  }
  return deepest;
}

function unsupported(node: Expression, rules: ExpressionRules, state: { deterministic: boolean }): string | undefined {
  switch (node.type) {
    case 'Literal': {
      const value = (node as jsep.Literal).value;
      return value instanceof RegExp ? 'regular expressions are not supported' : undefined;
    }
    case 'Identifier': {
      const name = (node as jsep.Identifier).name;
      if (!Object.hasOwn(rules.roots, name)) return `unknown name "${name}" (expressions start from ${Object.keys(rules.roots).join(', ')})`;
      if (!rules.roots[name]) state.deterministic = false;
      return undefined;
    }
    case 'MemberExpression': {
      const member = node as jsep.MemberExpression;
      const key = memberKey(member);
      if (key === undefined) return 'only property access with a name or a literal key is supported';
      if (FORBIDDEN_KEYS.has(String(key))) return `property "${key}" is not allowed`;
      return unsupported(member.object, rules, state);
    }
    case 'UnaryExpression': {
      const unary = node as jsep.UnaryExpression;
      return UNARY.has(unary.operator) ? unsupported(unary.argument, rules, state) : `operator "${unary.operator}" is not supported`;
    }
    case 'BinaryExpression':
    case 'LogicalExpression': {
      const binary = node as jsep.BinaryExpression;
      if (!rules.binary.has(binary.operator)) return `operator "${binary.operator}" is not supported`;
      return unsupported(binary.left, rules, state) ?? unsupported(binary.right, rules, state);
    }
    case 'ConditionalExpression': {
      const conditional = node as jsep.ConditionalExpression;
      return (
        unsupported(conditional.test, rules, state) ?? unsupported(conditional.consequent, rules, state) ?? unsupported(conditional.alternate, rules, state)
      );
    }
    case 'Compound':
      return 'only one expression is allowed';
    case 'CallExpression':
      return 'function calls are not supported';
    default:
      return `${node.type} is not supported`;
  }
}

/** Evaluates a checked AST over `scope` (own properties only). */
export function evaluateExpression(node: Expression, scope: Record<string, unknown>): unknown {
  switch (node.type) {
    case 'Literal':
      return (node as jsep.Literal).value;
    case 'Identifier': {
      const name = (node as jsep.Identifier).name;
      return Object.hasOwn(scope, name) ? scope[name] : undefined;
    }
    case 'MemberExpression': {
      const member = node as jsep.MemberExpression;
      const target = evaluateExpression(member.object, scope);
      const key = memberKey(member);
      if (target === null || typeof target !== 'object' || key === undefined) return undefined;
      return Object.hasOwn(target, key) ? (target as Record<string | number, unknown>)[key] : undefined;
    }
    case 'UnaryExpression': {
      const unary = node as jsep.UnaryExpression;
      const value = evaluateExpression(unary.argument, scope);
      return unary.operator === '!' ? !value : typeof value === 'number' ? -value : undefined;
    }
    case 'ConditionalExpression': {
      const conditional = node as jsep.ConditionalExpression;
      return evaluateExpression(conditional.test, scope) ? evaluateExpression(conditional.consequent, scope) : evaluateExpression(conditional.alternate, scope);
    }
    case 'BinaryExpression':
    case 'LogicalExpression': {
      const binary = node as jsep.BinaryExpression;
      if (binary.operator === '&&') return evaluateExpression(binary.left, scope) && evaluateExpression(binary.right, scope);
      if (binary.operator === '||') return evaluateExpression(binary.left, scope) || evaluateExpression(binary.right, scope);
      const left = evaluateExpression(binary.left, scope);
      const right = evaluateExpression(binary.right, scope);
      switch (binary.operator) {
        case '+':
          return typeof left === 'number' && typeof right === 'number' ? left + right : expressionText(left) + expressionText(right);
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
function looseEquals(left: unknown, right: unknown): boolean {
  if (left == null || right == null) return left == null && right == null;
  return left === right;
}

/** Ordering only between two numbers or two strings; anything else is false. */
function compare(operator: string, left: unknown, right: unknown): boolean {
  const comparable = (typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string');
  if (!comparable) return false;
  const [a, b] = [left as number | string, right as number | string];
  if (operator === '<') return a < b;
  if (operator === '<=') return a <= b;
  if (operator === '>') return a > b;
  return a >= b;
}

/** A value as text: strings, numbers and booleans; missing values and objects read as nothing. */
export function expressionText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}
