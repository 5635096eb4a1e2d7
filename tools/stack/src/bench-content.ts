import { performance } from 'node:perf_hooks';
import { apiClient, type ApiClient, type TestStack, successBody } from '@quire/testkit';

/**
 * Content benchmarks for `npm run bench` (the caller starts the stack, with a rate limit
 * high enough for bulk writes): a three-way merge of a change request editing one page
 * of a 500- and of a 5,000-page space while the space moved on (another change request
 * merged first), and GET content of a 1,000-page space. Spaces are built over HTTP in
 * batches of 50 page inserts, as a client would. Returns the medians in milliseconds.
 */

const BATCH = 50;

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function changeRequest(api: ApiClient, spaceId: string, subject: string): Promise<string> {
  return successBody(await api.post(`/v1/spaces/${spaceId}/change-requests`, { subject }), 'create change request').id;
}

/** A space whose content holds `pages` pages (each with a few lines of markdown); returns ids. */
async function buildSpace(api: ApiClient, organizationId: string, pages: number): Promise<{ spaceId: string; pageIds: string[] }> {
  const spaceId = successBody(await api.post(`/v1/orgs/${organizationId}/spaces`, { title: `Bench ${pages}` }), 'create space').id;
  const cr = await changeRequest(api, spaceId, `${pages} pages`);
  for (let start = 0; start < pages; start += BATCH) {
    const changes = Array.from({ length: Math.min(BATCH, pages - start) }, (_, i) => ({
      type: 'insert_page',
      title: `Page ${start + i}`,
      markdown: `# Page ${start + i}\n\nLine one.\nLine two.\nSee [the first page](page-0.md).\n`,
    }));
    successBody(await api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/content`, { changes }), 'insert pages');
  }
  successBody(await api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/merge`), 'merge seed');
  const revision = successBody(await api.get(`/v1/spaces/${spaceId}/content`), 'content');
  const pageIds = (revision.pages as Array<{ id: string }>).map((page) => page.id);
  return { spaceId, pageIds };
}

/** Median time of merging a change request that edits one page, after another one was merged. */
async function measureMerge(api: ApiClient, spaceId: string, pageIds: string[], runs: number): Promise<number> {
  const samples: number[] = [];
  for (let run = 0; run < runs + 1; run++) {
    const first = await changeRequest(api, spaceId, `first ${run}`);
    const second = await changeRequest(api, spaceId, `second ${run}`);
    const edit = (page: string, text: string) => [{ type: 'update_page', page, markdown: `# Edited\n\n${text}\n` }];
    successBody(
      await api.post(`/v1/spaces/${spaceId}/change-requests/${first}/content`, { changes: edit(pageIds[(run * 2) % pageIds.length], `first ${run}`) }),
      'edit',
    );
    successBody(
      await api.post(`/v1/spaces/${spaceId}/change-requests/${second}/content`, { changes: edit(pageIds[(run * 2 + 1) % pageIds.length], `second ${run}`) }),
      'edit',
    );
    successBody(await api.post(`/v1/spaces/${spaceId}/change-requests/${first}/merge`), 'merge first');
    const started = performance.now();
    successBody(await api.post(`/v1/spaces/${spaceId}/change-requests/${second}/merge`), 'merge second');
    if (run > 0) samples.push(performance.now() - started); // run 0 warms up
  }
  return median(samples);
}

async function measureGet(api: ApiClient, path: string, runs: number): Promise<number> {
  for (let i = 0; i < 3; i++) successBody(await api.get(path), 'warm-up');
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    successBody(await api.get(path), path);
    samples.push(performance.now() - started);
  }
  return median(samples);
}

export async function benchContent(
  stack: Pick<TestStack, 'baseUrl' | 'cli'>,
  options: { log?: (line: string) => void; mergeRuns?: number; getRuns?: number } = {},
): Promise<Record<string, number>> {
  const log = options.log ?? ((line: string) => console.log(line));
  const owner = await stack.cli(['bootstrap', '--email', `bench-content-${Date.now()}@bench.test`, '--org', 'Bench content', '--json']);
  const api = apiClient(stack.baseUrl, owner.token);
  const results: Record<string, number> = {};
  const report = (label: string, value: number) => {
    results[label] = value;
    log(`${label.padEnd(64)} p50 ${value.toFixed(2)} ms`);
  };

  const small = await buildSpace(api, owner.organizationId, 500);
  report('merge CR editing 1 page of a 500-page space (3-way)', await measureMerge(api, small.spaceId, small.pageIds, options.mergeRuns ?? 15));
  const medium = await buildSpace(api, owner.organizationId, 1_000);
  report('GET /v1/spaces/{id}/content of a 1,000-page space', await measureGet(api, `/v1/spaces/${medium.spaceId}/content`, options.getRuns ?? 30));
  const large = await buildSpace(api, owner.organizationId, 5_000);
  report('merge CR editing 1 page of a 5,000-page space (3-way)', await measureMerge(api, large.spaceId, large.pageIds, options.mergeRuns ?? 15));
  return results;
}
