import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { AnchorAllocator, headingAnchor, renderMarkdown } from './index';

describe('the shared markdown renderer', () => {
  it('gives headings unique anchors and lists them for the outline', () => {
    const { html, headings } = renderMarkdown('## Getting Started: Step 1!\n\ntext\n\n## Getting Started: Step 1!\n\n### Ünïcode `code`\n');
    assert.deepEqual(
      headings.map((h) => [h.level, h.anchor, h.text]),
      [
        [2, 'getting-started-step-1', 'Getting Started: Step 1!'],
        [2, 'getting-started-step-1-1', 'Getting Started: Step 1!'],
        [3, 'unicode-code', 'Ünïcode code'],
      ],
    );
    assert.match(html, /<h2 id="getting-started-step-1">Getting Started: Step 1! <a class="anchor" href="#getting-started-step-1"/);
    assert.match(html, /<h3 id="unicode-code">Ünïcode <code>code<\/code>/);
  });

  it('puts a body that uses h1 one level under the page title', () => {
    const { headings } = renderMarkdown('# Top\n\n## Below\n');
    assert.deepEqual(
      headings.map((h) => h.level),
      [2, 3],
    );
  });

  it('sends links and images through the resolvers, drops unresolved links, and keeps raw HTML as text', () => {
    const { html } = renderMarkdown('[a](/pages/p1#x) [b](/pages/gone) ![alt text](/files/f1) <script>alert(1)</script> https://example.com', {
      resolveHref: (href) => (href.startsWith('/pages/p1') ? '/site/page#x' : href.startsWith('/pages/') ? null : href),
      resolveSrc: (src) => `/site/~/files/${src.slice(7)}`,
    });
    assert.match(html, /<a href="\/site\/page#x">a<\/a>/);
    assert.match(html, /<a>b<\/a>/);
    assert.match(html, /<img src="\/site\/~\/files\/f1" alt="alt text" loading="lazy">/);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(html, /<a href="https:\/\/example\.com" rel="noopener">https:\/\/example\.com<\/a>/);
  });

  it('drops GitBook block tags and never links javascript:', () => {
    const { html } = renderMarkdown('{% hint style="info" %}\nBe careful.\n{% endhint %}\n\n[x](javascript:alert(1))');
    assert.doesNotMatch(html, /hint|href="javascript/);
    assert.match(html, /Be careful\./);
  });

  it('allocates the anchors search sections use', () => {
    const anchors = new AnchorAllocator();
    assert.deepEqual(
      ['A b', 'A b', 'a-b-1', '!!!'].map((h) => anchors.next(h)),
      ['a-b', 'a-b-1', 'a-b-1-1', 'section'],
    );
    assert.equal(headingAnchor('Ça  va — bien'), 'ca-va-bien');
  });
});
