import { httpError } from '@quire/http';
import type { SpaceAccess } from '../access';
import type { ContentContext } from '../kernel';
import {
  applyChanges,
  commitSpaceRevision,
  findChangeRequest,
  hasModels,
  loadRevision,
  loadSpec,
  MAX_TAG_PAGES,
  OPENAPI_COMPUTED_TYPE,
  overviewMarkdown,
  specFileOf,
  specSlugOf,
  specTags,
  writeChangeRequestContent,
  type ContentChange,
  type RevisionDoc,
  type RevisionFileDoc,
} from '../revisions';

/*
 * Built-in content templates (OpenAPI applyTemplateToSpace, and `template` when creating a
 * change request). A template is a list of content changes appended at the end of the
 * root of the target content, so applying one is an ordinary content write:
 *   getting-started — Welcome, Quickstart, Guides (Writing pages, Publishing), FAQ;
 *   api-reference   — needs params.contentRefs holding one OpenAPI specification of the
 *                     target content ({kind: 'openapi', spec: '<file name without
 *                     extension>'} or {kind: 'file', file: '<file id>'}): an "API Reference"
 *                     overview page, under it one generated page per tag and a "Models" page.
 */

export interface ContentRefInput {
  kind: string;
  spec?: string;
  file?: string;
}

export interface TemplateInput {
  id: string;
  params?: { contentRefs?: Record<string, ContentRefInput> | ContentRefInput[] };
}

type TemplateBuilder = (ctx: ContentContext, content: RevisionDoc, input: TemplateInput, field: string) => Promise<ContentChange[]>;

const GETTING_STARTED: ContentChange[] = [
  {
    type: 'insert_page',
    title: 'Welcome',
    emoji: '👋',
    description: 'What this documentation covers and where to start',
    markdown: [
      '# Welcome',
      '',
      'This space holds the documentation of your product. Use this page to say, in a few sentences, what the product does and who it is for.',
      '',
      '## Where to go next',
      '',
      '- **Quickstart** — the shortest path from nothing to a first result.',
      '- **Guides** — task-oriented walkthroughs for the things people do every day.',
      '- **FAQ** — answers to the questions that come up again and again.',
      '',
      '## About these pages',
      '',
      'Every page here is a starting point: rename, rewrite or delete it. Edits go through change requests, so nothing reaches readers before it is reviewed and merged.',
      '',
    ].join('\n'),
  },
  {
    type: 'insert_page',
    title: 'Quickstart',
    emoji: '🚀',
    description: 'Get a first result in a few minutes',
    markdown: [
      '# Quickstart',
      '',
      'A quickstart gets a new user to a first success as fast as possible. Keep it short and concrete.',
      '',
      '## Before you begin',
      '',
      '- List the accounts, keys or tools the reader needs.',
      '- Say which versions or platforms are supported.',
      '',
      '## Step 1: Install',
      '',
      '```bash',
      'npm install your-package',
      '```',
      '',
      '## Step 2: Configure',
      '',
      'Show the smallest configuration that works, and explain each value in one line.',
      '',
      '## Step 3: Run it',
      '',
      'Show the command or call to make and what a successful result looks like.',
      '',
      '## Next steps',
      '',
      'Point to the guide that covers what most readers want to do next.',
      '',
    ].join('\n'),
  },
  {
    type: 'insert_page',
    ref: 'guides',
    title: 'Guides',
    emoji: '📚',
    description: 'Task-oriented walkthroughs',
    markdown: [
      '# Guides',
      '',
      'Each guide walks through one task from start to finish. Give every guide a title that names the task ("Invite your team", "Rotate an API key"), state what the reader will have at the end, and keep one task per page.',
      '',
    ].join('\n'),
  },
  {
    type: 'insert_page',
    into: 'guides',
    title: 'Writing pages',
    markdown: [
      '# Writing pages',
      '',
      'Pages are written in Markdown.',
      '',
      '## Structure',
      '',
      '- Start with one sentence that says what the page is for.',
      '- Use `##` headings for the main steps or sections; readers scan headings first.',
      '- Prefer short paragraphs, numbered lists for sequences and tables for reference data.',
      '',
      '## Links and files',
      '',
      'Link to other pages by their path, for example `[Quickstart](../quickstart)`, and upload images and attachments as files of the space.',
      '',
      '## Variables',
      '',
      'Values that appear on many pages (a product name, a version) can be space variables, written `{{ space.vars.version }}` in a page and replaced when the page is read evaluated.',
      '',
    ].join('\n'),
  },
  {
    type: 'insert_page',
    into: 'guides',
    title: 'Publishing your docs',
    markdown: [
      '# Publishing your docs',
      '',
      '1. Open a change request and make your edits in it.',
      '2. Ask a teammate for a review; the merge rules of the space may require one.',
      '3. Merge the change request: its content becomes the space content.',
      '4. Add the space to a site to publish it for your readers.',
      '',
      'Keep change requests small and focused: they are easier to review and merge without conflicts.',
      '',
    ].join('\n'),
  },
  {
    type: 'insert_page',
    title: 'FAQ',
    emoji: '❓',
    description: 'Answers to common questions',
    markdown: [
      '# Frequently asked questions',
      '',
      '## Who is this documentation for?',
      '',
      'Describe the audience here: users, administrators, developers integrating with the product.',
      '',
      '## How do I get help?',
      '',
      'Say where to ask questions and how to report a problem, and how fast the reader can expect an answer.',
      '',
      '## Where can I suggest a change to these docs?',
      '',
      'Anyone with edit access can open a change request on this space.',
      '',
    ].join('\n'),
  },
];

function badParams(field: string, message: string): never {
  throw httpError.badRequest(`Invalid body: ${field}: ${message}`);
}

/** The one specification the api-reference template documents: the file and the name its refs use. */
async function specificationOf(ctx: ContentContext, content: RevisionDoc, input: TemplateInput, field: string) {
  const refsField = `${field}params.contentRefs`;
  const refs = input.params?.contentRefs ?? {};
  const candidates = Object.entries(refs).filter(([, ref]) => ref.kind === 'openapi' || ref.kind === 'file');
  if (candidates.length !== 1) {
    badParams(
      refsField,
      `the api-reference template needs exactly one OpenAPI specification of this content: {kind: 'openapi', spec: '<file name without extension>'} or {kind: 'file', file: '<file id>'}`,
    );
  }
  const [key, ref] = candidates[0];
  const refField = `${refsField}.${key}`;
  let file: RevisionFileDoc | undefined;
  if (ref.kind === 'openapi') {
    file = specFileOf(content.files, ref.spec ?? '');
    if (!file) badParams(refField, `no file named "${ref.spec}" (with any extension) in this content`);
  } else {
    file = content.files.find((candidate) => candidate.id === ref.file);
    if (!file) badParams(refField, `no file ${ref.file} in this content`);
  }
  const parsed = await loadSpec(ctx, file);
  if (!parsed.ok) badParams(refField, `the file "${file.name}" cannot be used: ${parsed.message}`);
  return { doc: parsed.doc, slug: specSlugOf(file.name), field: refField };
}

const apiReference: TemplateBuilder = async (ctx, content, input, field) => {
  const { doc, slug, field: refField } = await specificationOf(ctx, content, input, field);
  const tags = specTags(doc);
  if (tags.length > MAX_TAG_PAGES)
    badParams(refField, `the specification has ${tags.length} tags: the api-reference template makes one page per tag, at most ${MAX_TAG_PAGES}`);
  const spec = { ref: { kind: 'openapi', spec: slug } };
  const changes: ContentChange[] = [{ type: 'insert_page', ref: 'api-reference', title: 'API Reference', emoji: '🔌', markdown: overviewMarkdown(doc) }];
  for (const tag of tags) {
    changes.push({
      type: 'insert_page',
      into: 'api-reference',
      title: tag.name.slice(0, 100),
      computed: { type: OPENAPI_COMPUTED_TYPE, dependencies: { spec }, props: { doc: 'operations', page: tag.name } },
    });
  }
  if (hasModels(doc)) {
    changes.push({
      type: 'insert_page',
      into: 'api-reference',
      title: 'Models',
      computed: { type: OPENAPI_COMPUTED_TYPE, dependencies: { spec }, props: { doc: 'models' } },
    });
  }
  return changes;
};

const TEMPLATES: Record<string, TemplateBuilder> = {
  'getting-started': async () => GETTING_STARTED,
  'api-reference': apiReference,
};

export const TEMPLATE_IDS = Object.keys(TEMPLATES);

function builderOf(input: TemplateInput, field: string): TemplateBuilder {
  if (!Object.hasOwn(TEMPLATES, input.id)) badParams(`${field}id`, `unknown template "${input.id}" (one of: ${TEMPLATE_IDS.join(', ')})`);
  return TEMPLATES[input.id];
}

/**
 * The changes that apply template `input` to `content`; a 400 naming the field (prefixed
 * with `field`, e.g. "template.") when the template is unknown or its parameters are wrong.
 */
export async function templateChanges(ctx: ContentContext, content: RevisionDoc, input: TemplateInput, field = ''): Promise<ContentChange[]> {
  return builderOf(input, field)(ctx, content, input, field);
}

/**
 * Applies a template to a change request (by id or number: 404 when unknown, 409 when
 * merged) or, without one, to the space's primary content (a new revision of the space).
 */
export async function applyTemplate(
  ctx: ContentContext,
  access: SpaceAccess,
  userId: string,
  input: TemplateInput & { changeRequestId?: string },
): Promise<void> {
  builderOf(input, '');
  if (input.changeRequestId !== undefined) {
    const changeRequest = await findChangeRequest(ctx, access.space._id, input.changeRequestId);
    if (changeRequest.status === 'merged') throw httpError.conflict('This change request is merged: its content can no longer change');
    const changes = await templateChanges(ctx, await loadRevision(ctx, changeRequest.revisionId), input);
    await writeChangeRequestContent(ctx, changeRequest, userId, changes);
    return;
  }
  await commitSpaceRevision(ctx, access.space._id, userId, async (current) => applyChanges(current, await templateChanges(ctx, current, input)));
}
