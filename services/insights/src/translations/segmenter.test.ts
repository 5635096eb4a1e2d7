import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import {
  assemble,
  countWords,
  identity,
  PlaceholderMismatchError,
  restoreSegment,
  segmentInline,
  segmentMarkdown,
  segmentsOf,
  type Segment,
} from './segmenter';

/** What a provider that shouts would give back: letters upper-cased, placeholders (digits) untouched. */
const shout = (segment: Segment) => segment.text.toUpperCase();

const PAGE = [
  '---',
  'description: A page about setup',
  'icon: book',
  'layout:',
  '  cover: true',
  '---',
  '',
  '# Getting started {{ space.title }}',
  '',
  'Install it with `npm install quire` and read [the guide](https://example.com/guide "Guide") or [the API][api].',
  'See also <https://quire.dev/docs> and https://bare.example.org/path?x=1 or [shortcut].',
  '',
  '{% hint style="info" %}',
  'Hints keep their tags, but **their text** is translated.',
  '{% endhint %}',
  '',
  '```js',
  'const greeting = "hello world";',
  '```',
  '',
  '    indented code stays',
  '',
  '- first item with ![a diagram](images/diagram.png)',
  '- second item',
  '  continued on a second line',
  '',
  '> quoted text',
  '> on two lines',
  '',
  '| Name | Value |',
  '|------|-------|',
  '| colour | `red \\| blue` |',
  '',
  'Setext title',
  '============',
  '',
  '<div class="note">raw html block</div>',
  '',
  'Math $$x^2$$ and <kbd>Ctrl</kbd> keys.',
  '',
  '[api]: https://example.com/api',
  '[shortcut]: https://example.com/short',
  '',
].join('\n');

describe('translations: markdown segmenter', () => {
  it('gives the source back byte for byte when nothing is translated', () => {
    assert.equal(assemble(segmentMarkdown(PAGE), identity), PAGE);
    for (const text of ['', 'plain', '```\nunclosed fence', '  # spaced heading ##  ', 'a\tb\n\n\tcode', '---\nno end', '⟦0⟧ literal brackets ⟦']) {
      assert.equal(assemble(segmentMarkdown(text), identity), text, JSON.stringify(text));
    }
    assert.equal(assemble(segmentInline('Title with `code`'), identity), 'Title with `code`');
  });

  it('translates prose only: code, link targets, URLs, expressions, HTML, math, front matter keys and settings untouched', () => {
    const translated = assemble(segmentMarkdown(PAGE), shout);
    const lines = translated.split('\n');
    const expected = [
      '---',
      'description: A PAGE ABOUT SETUP',
      'icon: book',
      'layout:',
      '  cover: true',
      '---',
      '',
      '# GETTING STARTED {{ space.title }}',
      '',
      'INSTALL IT WITH `npm install quire` AND READ [THE GUIDE](https://example.com/guide "Guide") OR [THE API][api].',
      'SEE ALSO <https://quire.dev/docs> AND https://bare.example.org/path?x=1 OR [shortcut].',
      '',
      '{% hint style="info" %}',
      'HINTS KEEP THEIR TAGS, BUT **THEIR TEXT** IS TRANSLATED.',
      '{% endhint %}',
      '',
      '```js',
      'const greeting = "hello world";',
      '```',
      '',
      '    indented code stays',
      '',
      '- FIRST ITEM WITH ![A DIAGRAM](images/diagram.png)',
      '- SECOND ITEM',
      '  CONTINUED ON A SECOND LINE',
      '',
      '> QUOTED TEXT',
      '> ON TWO LINES',
      '',
      '| NAME | VALUE |',
      '|------|-------|',
      '| COLOUR | `red \\| blue` |',
      '',
      'SETEXT TITLE',
      '============',
      '',
      '<div class="note">raw html block</div>',
      '',
      'MATH $$x^2$$ AND <kbd>CTRL</kbd> KEYS.',
      '',
      '[api]: https://example.com/api',
      '[shortcut]: https://example.com/short',
      '',
    ];
    assert.deepEqual(lines, expected);
  });

  it('survives hostile markdown: every sample round-trips, and code and targets survive a translation', () => {
    const samples = [
      'Unclosed `code span and [unclosed link(',
      '[nested [brackets]](https://x.test/a_(b)) and ![img [alt]](i.png "T")',
      '*emphasis\nacross* lines and __strong__ and ~~strike~~',
      '- item\n\t- tabbed child with `tick`\n\t\tcontinuation',
      '1. one\n2. two\n   lazy `x`',
      '> quote with `code`\n>\n> > nested quote',
      'Text with <span class="a">inline html</span> and &amp; entity and \\* escape',
      '## Heading with `code` ##',
      '| a | b |\n|---|---|\n| `c|d` | e |',
      '<!-- comment -->\n\nAfter the comment',
      'Footnote[^1] and www.example.com and mail@example.com',
      '{% tabs %}\n{% tab title="One" %}\nTab text\n{% endtab %}\n{% endtabs %}',
    ];
    for (const sample of samples) {
      assert.equal(assemble(segmentMarkdown(sample), identity), sample, JSON.stringify(sample));
      const shouted = assemble(segmentMarkdown(sample), shout);
      for (const kept of ['`code`', '`tick`', 'https://x.test/a_(b)', 'i.png', '{% tab title="One" %}', '<span class="a">']) {
        if (sample.includes(kept)) assert.ok(shouted.includes(kept), `${kept} kept in ${JSON.stringify(shouted)}`);
      }
    }
    assert.equal(assemble(segmentMarkdown('Windows\r\nline endings\r\n'), identity), 'Windows\nline endings\n');
  });

  it('keeps a sentence broken over lines in one segment, the line break and its prefix protected', () => {
    const segments = segmentsOf(segmentMarkdown('> quoted text\n> on two lines\n'));
    assert.equal(segments.length, 1);
    assert.equal(segments[0].text, 'quoted text⟦0⟧on two lines');
    assert.deepEqual(segments[0].protectedSpans, ['\n> ']);
  });

  it('sends nothing without words: code only, expressions only, URLs only', () => {
    assert.deepEqual(segmentsOf(segmentMarkdown('```\ncode\n```\n\n{% include "x" %}\n\nhttps://example.com\n\n`a` `b`\n')), []);
    assert.deepEqual(segmentsOf(segmentInline('{{ page.title }}')), []);
  });

  it('refuses a translation that lost, repeated or invented a placeholder', () => {
    const [segment] = segmentsOf(segmentInline('Run `make` then `test` now'));
    assert.equal(segment.text, 'Run ⟦0⟧ then ⟦1⟧ now');
    assert.equal(restoreSegment(segment, 'Lance ⟦1⟧ après ⟦0⟧'), 'Lance `test` après `make`');
    assert.throws(() => restoreSegment(segment, 'Lance ⟦0⟧'), PlaceholderMismatchError);
    assert.throws(() => restoreSegment(segment, 'Lance ⟦0⟧ ⟦0⟧ ⟦1⟧'), PlaceholderMismatchError);
    assert.throws(() => restoreSegment(segment, 'Lance ⟦0⟧ ⟦1⟧ ⟦2⟧'), PlaceholderMismatchError);
  });

  it('protects brackets that look like placeholders in the source itself', () => {
    const [segment] = segmentsOf(segmentInline('Literal ⟦0⟧ text'));
    assert.equal(assemble(segmentInline('Literal ⟦0⟧ text'), shout), 'LITERAL ⟦0⟧ TEXT');
    assert.equal(segment.protectedSpans.length, 2);
  });

  it('counts the words sent, not the protected spans', () => {
    const [segment] = segmentsOf(segmentInline('Install `npm install quire` in two minutes'));
    assert.equal(countWords(segment), 4);
  });
});
