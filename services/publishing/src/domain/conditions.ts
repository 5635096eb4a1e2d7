import jsep = require('jsep');

/**
 * Adaptive-content conditions: small JavaScript-like expressions over the visitor's
 * claims, e.g. `visitor.claims.beta === true && visitor.claims.unsigned.plan != "free"`.
 * They are parsed with jsep and evaluated by walking the AST (never eval): only member
 * access, literals, comparisons, equality, `!`, `&&`, `||` (and parentheses) exist.
 */

const BINARY = new Set(['==', '!=', '===', '!==', '<', '<=', '>', '>=', '&&', '||']);
const UNARY = new Set(['!', '-']);
/** The names an expression may start from. */
const ROOTS = new Set(['visitor']);
/** Keys that would reach into prototypes: refused outright. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

export type ConditionCheck = { ok: true; ast: jsep.Expression } | { ok: false; message: string };

/** Parses and checks a condition; the message says what is wrong (shown to API callers). */
export function checkCondition(expression: string): ConditionCheck {
  let ast: jsep.Expression;
  try {
    ast = jsep(expression);
  } catch (error) {
    return { ok: false, message: `not a valid expression (${(error as Error).message})` };
  }
  if (!ast) return { ok: false, message: 'must not be empty' };
  const problem = unsupported(ast);
  return problem ? { ok: false, message: problem } : { ok: true, ast };
}

function memberKey(node: jsep.MemberExpression): string | number | undefined {
  if (!node.computed && node.property.type === 'Identifier') return (node.property as jsep.Identifier).name;
  if (node.computed && node.property.type === 'Literal') {
    const value = (node.property as jsep.Literal).value;
    if (typeof value === 'string' || typeof value === 'number') return value;
  }
  return undefined;
}

function unsupported(node: jsep.Expression): string | undefined {
  switch (node.type) {
    case 'Literal': {
      const value = (node as jsep.Literal).value;
      return value instanceof RegExp ? 'regular expressions are not supported' : undefined;
    }
    case 'Identifier': {
      const name = (node as jsep.Identifier).name;
      return ROOTS.has(name) ? undefined : `unknown name "${name}" (conditions start from ${[...ROOTS].join(', ')})`;
    }
    case 'MemberExpression': {
      const member = node as jsep.MemberExpression;
      const key = memberKey(member);
      if (key === undefined) return 'only property access with a name or a literal key is supported';
      if (FORBIDDEN_KEYS.has(String(key))) return `property "${key}" is not allowed`;
      return unsupported(member.object);
    }
    case 'UnaryExpression': {
      const unary = node as jsep.UnaryExpression;
      return UNARY.has(unary.operator) ? unsupported(unary.argument) : `operator "${unary.operator}" is not supported`;
    }
    case 'BinaryExpression':
    case 'LogicalExpression': {
      const binary = node as jsep.BinaryExpression;
      if (!BINARY.has(binary.operator)) return `operator "${binary.operator}" is not supported`;
      return unsupported(binary.left) ?? unsupported(binary.right);
    }
    case 'Compound':
      return 'only one expression is allowed';
    case 'CallExpression':
      return 'function calls are not supported';
    default:
      return `${node.type} is not supported`;
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
    case 'BinaryExpression':
    case 'LogicalExpression': {
      const binary = node as jsep.BinaryExpression;
      if (binary.operator === '&&') return evaluate(binary.left, scope) && evaluate(binary.right, scope);
      if (binary.operator === '||') return evaluate(binary.left, scope) || evaluate(binary.right, scope);
      const left = evaluate(binary.left, scope);
      const right = evaluate(binary.right, scope);
      switch (binary.operator) {
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

/** `==` without JavaScript's coercion surprises: null and undefined are equal, otherwise strict. */
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

/** The claims a visitor presents; `unsigned` holds the claims nobody signed. */
export interface VisitorClaims {
  [claim: string]: unknown;
  unsigned?: Record<string, unknown>;
}

/**
 * Whether content guarded by `condition` is shown to a visitor with `claims`. No
 * condition: shown. A condition that does not parse (stored before a rule changed): hidden.
 */
export function conditionHolds(condition: string | null | undefined, claims: VisitorClaims): boolean {
  if (!condition) return true;
  const checked = checkCondition(condition);
  if (!checked.ok) return false;
  const visitor = { claims: { ...claims, unsigned: claims.unsigned ?? {} } };
  return Boolean(evaluate(checked.ast, { visitor }));
}
