import { checkExpression, evaluateExpression, type Expression } from '@quire/runtime';

/**
 * Adaptive-content conditions: small JavaScript-like expressions over the visitor's
 * claims, e.g. `visitor.claims.beta === true && visitor.claims.unsigned.plan != "free"`.
 * They are parsed with jsep and evaluated by walking the AST (never eval, the shared
 * engine of @quire/runtime): only member access, literals, comparisons, equality, `!`,
 * `&&`, `||` (and parentheses) exist.
 */

const RULES = {
  roots: { visitor: false },
  binary: new Set(['==', '!=', '===', '!==', '<', '<=', '>', '>=', '&&', '||']),
};

export type ConditionCheck = { ok: true; ast: Expression } | { ok: false; message: string };

/** Parses and checks a condition; the message says what is wrong (shown to API callers). */
export function checkCondition(expression: string): ConditionCheck {
  const checked = checkExpression(expression, RULES);
  return checked.ok ? { ok: true, ast: checked.ast } : checked;
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
  return Boolean(evaluateExpression(checked.ast, { visitor }));
}
