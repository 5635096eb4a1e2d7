/*
 * How good a clustering of labelled issues is.
 *
 * - purity: the share of issues that are in a cluster whose majority problem is theirs
 *   (Σ over clusters of its largest same-problem count, over all issues);
 * - problems with their own cluster: problems P for which some cluster has P as its majority
 *   and holds at least half of P's issues (a problem split into crumbs has none, a problem
 *   merged into another's cluster has none either).
 */

/** One clustered issue and the known problem of its conversation. */
export interface LabelledAssignment {
  problem: string;
  cluster: string;
}

export interface ClusteringQuality {
  issues: number;
  clusters: number;
  purity: number;
  problems: number;
  /** Problems with a cluster of their own, by key. */
  problemsWithOwnCluster: string[];
  /** Per problem: its issues, and the share of them in its best cluster. */
  perProblem: Record<string, { issues: number; inBestCluster: number }>;
}

const countBy = <T>(items: readonly T[], key: (item: T) => string) => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
};

/** Measures a clustering against the known problems. */
export function measureClustering(assignments: readonly LabelledAssignment[]): ClusteringQuality {
  const byCluster = new Map<string, LabelledAssignment[]>();
  for (const assignment of assignments) byCluster.set(assignment.cluster, [...(byCluster.get(assignment.cluster) ?? []), assignment]);
  const problemSizes = countBy(assignments, (a) => a.problem);
  let pure = 0;
  const best = new Map<string, number>();
  const own = new Set<string>();
  for (const members of byCluster.values()) {
    const counts = [...countBy(members, (a) => a.problem)].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const [majority, size] = counts[0];
    pure += size;
    for (const [problem, count] of counts) best.set(problem, Math.max(best.get(problem) ?? 0, count));
    if (size * 2 >= problemSizes.get(majority)!) own.add(majority);
  }
  const perProblem: ClusteringQuality['perProblem'] = {};
  for (const [problem, issues] of problemSizes) perProblem[problem] = { issues, inBestCluster: (best.get(problem) ?? 0) / issues };
  return {
    issues: assignments.length,
    clusters: byCluster.size,
    purity: assignments.length ? pure / assignments.length : 0,
    problems: problemSizes.size,
    problemsWithOwnCluster: [...own].sort(),
    perProblem,
  };
}
