import type { ClusterState } from './clustering';
import { clip } from './extract';
import type { TermCount } from './vectors';

/*
 * What a cluster is called by the default pipeline: its label is made of its most distinctive
 * terms, its icon follows from them, its summary counts what it holds and quotes one of its
 * issues. A provider, when configured, words them better (see provider.ts).
 */

export const MAX_LABEL_LENGTH = 100;
export const MAX_CLUSTER_SUMMARY_LENGTH = 1000;
/** Terms in a default label. */
const LABEL_TERMS = 3;

/** Icon names (GitBook's icon set) by the words that call for them, first match wins. */
const ICONS: Array<[icon: string, words: string[]]> = [
  [
    'lock',
    [
      'password',
      'login',
      'log',
      'sign',
      'signin',
      'auth',
      'authentication',
      'sso',
      'saml',
      'credential',
      'twofactor',
      '2fa',
      'mfa',
      'otp',
      'token',
      'locked',
      'lockout',
    ],
  ],
  [
    'credit-card',
    ['billing', 'bill', 'invoice', 'payment', 'pay', 'charge', 'card', 'refund', 'subscription', 'plan', 'price', 'pricing', 'seat', 'receipt', 'vat'],
  ],
  ['file-arrow-up', ['upload', 'file', 'pdf', 'attachment', 'image', 'import', 'export', 'download', 'csv']],
  ['globe', ['domain', 'dns', 'hostname', 'ssl', 'certificate', 'https', 'publish', 'site', 'url']],
  ['magnifying-glass', ['search', 'index', 'result', 'query']],
  ['bell', ['notification', 'email', 'mail', 'inbox', 'digest', 'alert']],
  ['users', ['member', 'team', 'invite', 'invitation', 'permission', 'role', 'seat', 'user', 'admin']],
  ['language', ['translation', 'translate', 'language', 'locale']],
  ['gauge', ['slow', 'performance', 'latency', 'timeout', 'load', 'loading', 'speed', 'lag']],
  ['code', ['api', 'webhook', 'integration', 'sdk', 'endpoint', 'git', 'github', 'sync']],
  ['mobile', ['mobile', 'app', 'ios', 'android', 'phone', 'application']],
  ['bug', ['crash', 'error', 'bug', 'fail', 'exception', 'freeze']],
  ['gear', ['setting', 'config', 'configuration', 'preference', 'option']],
];
const DEFAULT_ICON = 'circle-question';

/** The icon for a cluster about these terms (best first): the first of ICONS any of its three best terms calls for, else of all. */
export function iconFor(terms: readonly string[]): string {
  for (const considered of [terms.slice(0, 3), terms]) {
    const found = ICONS.find(([, words]) => considered.some((term) => words.includes(term)));
    if (found) return found[0];
  }
  return DEFAULT_ICON;
}

/** "Password reset email": the terms, capitalized. */
export function labelFor(terms: readonly string[]): string {
  const label = terms.slice(0, LABEL_TERMS).join(' ');
  return label ? clip(label.charAt(0).toUpperCase() + label.slice(1), MAX_LABEL_LENGTH) : 'Other questions';
}

/** "4 issues in 3 conversations about password, reset, email. For example: “…”." */
export function summaryFor(cluster: Pick<ClusterState, 'issues' | 'conversations' | 'samples'>, terms: readonly string[]): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const about = terms.length > 0 ? ` about ${terms.slice(0, 5).join(', ')}` : '';
  const example = cluster.samples[0] ? ` For example: “${cluster.samples[0]}”` : '';
  return clip(`${plural(cluster.issues, 'issue')} in ${plural(cluster.conversations, 'conversation')}${about}.${example}`, MAX_CLUSTER_SUMMARY_LENGTH);
}

/** Label, icon and summary of a cluster from its most distinctive terms (best first). */
export function describeCluster(cluster: ClusterState, distinctive: readonly TermCount[]): Pick<ClusterState, 'label' | 'icon' | 'summary'> {
  const terms = distinctive.map(({ k }) => k);
  return { label: labelFor(terms), icon: iconFor(terms), summary: summaryFor(cluster, terms) };
}
