import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { headingAnchor } from './anchors';
import { AnchorAllocator, renderMarkdown } from './index';

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

  it('renders GitBook hints, tabs and code titles as elements around their markdown', () => {
    const { html } = renderMarkdown(
      [
        '{% hint style="warning" %}',
        'Be **careful**.',
        '{% endhint %}',
        '',
        '{% tabs %}',
        '{% tab title="Linux <1>" %}',
        '- apt install it',
        '{% endtab %}',
        '',
        '{% tab title="macOS" %}',
        'Use brew.',
        '{% endtab %}',
        '{% endtabs %}',
        '',
        '{% code title="install.sh" lineNumbers="true" %}',
        '```sh',
        'make install',
        '```',
        '{% endcode %}',
        '',
        '{% hint style="unknown" %}',
        'Plain.',
        '{% endhint %}',
      ].join('\n'),
    );
    assert.match(html, /<aside class="hint hint-warning" role="note">\n<p>Be <strong>careful<\/strong>\.<\/p>\n<\/aside>/);
    assert.match(
      html,
      /<div class="tabs">\n<details class="tab" open><summary>Linux &lt;1&gt;<\/summary>\n<ul>\n<li>apt install it<\/li>\n<\/ul>\n<\/details>/,
    );
    assert.match(html, /<details class="tab"><summary>macOS<\/summary>\n<p>Use brew\.<\/p>\n<\/details>\n<\/div>/);
    assert.match(html, /<figure class="code"><figcaption>install\.sh<\/figcaption>\n<pre><code class="language-sh">make install\n<\/code><\/pre>\n<\/figure>/);
    assert.match(html, /<aside class="hint hint-info" role="note">\n<p>Plain\.<\/p>/, 'an unknown style is an info hint');
    assert.doesNotMatch(html, /\{%/);
  });

  it('opens links to other sites in a new tab when asked, and only those', () => {
    const markdown = '[out](https://example.com/a) and [in](/pages/p1) and [mail](mailto:a@example.com)';
    const resolveHref = (href: string) => (href === '/pages/p1' ? '/site/p1' : href);
    const plain = renderMarkdown(markdown, { resolveHref }).html;
    assert.match(plain, /<a href="https:\/\/example\.com\/a" rel="noopener">out<\/a>/);
    const newTab = renderMarkdown(markdown, { resolveHref, externalInNewTab: true }).html;
    assert.match(newTab, /<a href="https:\/\/example\.com\/a" rel="noopener" target="_blank">out<\/a>/);
    assert.match(newTab, /<a href="\/site\/p1">in<\/a>/);
    assert.match(newTab, /<a href="mailto:a@example\.com">mail<\/a>/);
  });

  it('colours code blocks at render time, escaping what they hold, and leaves unknown languages plain', () => {
    const { html } = renderMarkdown(
      ['```ts', 'const greeting: string = "<b>hi</b>"; // say it', '```', '', '```nosuchlanguage', 'if <x>', '```', '', '```', 'plain <text>', '```'].join(
        '\n',
      ),
    );
    assert.match(
      html,
      /<pre><code class="language-ts"><span class="hljs-keyword">const<\/span> <span class="hljs-attr">greeting<\/span>: <span class="hljs-built_in">string<\/span> = <span class="hljs-string">&quot;&lt;b&gt;hi&lt;\/b&gt;&quot;<\/span>; <span class="hljs-comment">\/\/ say it<\/span>\n<\/code><\/pre>/,
    );
    assert.match(html, /<pre><code class="language-nosuchlanguage">if &lt;x&gt;\n<\/code><\/pre>/);
    assert.match(html, /<pre><code>plain &lt;text&gt;\n<\/code><\/pre>/);
    assert.doesNotMatch(html, /<b>/);
  });

  it('links embeds and files through the resolvers, never to a script', () => {
    const { html } = renderMarkdown(
      [
        '{% embed url="https://example.com/video" %}',
        'A caption.',
        '{% endembed %}',
        '',
        '{% file src="/files/f1" %}',
        '',
        '{% file src="/files/f2" %}',
        '',
        '{% file src="../.gitbook/assets/My%20guide.pdf" %}',
        '',
        '{% embed url="javascript:alert(1)" %}',
        '',
        '{% content-ref url="/pages/p1" %}',
        '[p1.md](/pages/p1)',
        '{% endcontent-ref %}',
        '',
        '{% content-ref url="/pages/gone" %}',
        '[gone.md](https://example.com/gone)',
        '{% endcontent-ref %}',
      ].join('\n'),
      {
        resolveHref: (href) => (href.startsWith('/pages/') ? '/site/install' : href),
        resolveSrc: (src) => (src === '/files/f1' ? '/site/~/files/s1/f1' : src),
        fileName: (src) => (src === '/files/f2' ? 'guide <2>.pdf' : undefined),
        pageTitle: (href) => (href === '/pages/p1' ? 'Install' : undefined),
      },
    );
    assert.match(
      html,
      /<figure class="embed"><p><a href="https:\/\/example\.com\/video" rel="noopener">https:\/\/example\.com\/video<\/a><\/p>\n<p>A caption\.<\/p>\n<\/figure>/,
    );
    assert.match(html, /<figure class="file"><p><a href="\/site\/~\/files\/s1\/f1" download>f1<\/a><\/p><\/figure>/, 'a file without its end tag');
    assert.match(html, /<a href="\/files\/f2" download>guide &lt;2&gt;\.pdf<\/a>/, 'a file known to the page is labelled with its name');
    assert.match(html, /<a href="\.\.\/\.gitbook\/assets\/My%20guide\.pdf" download>My guide\.pdf<\/a>/);
    assert.match(html, /<figure class="embed"><p>javascript:alert\(1\)<\/p><\/figure>/);
    assert.match(html, /<div class="content-ref">\n<p><a href="\/site\/install">Install<\/a><\/p>\n<\/div>/, "the page's title");
    assert.match(
      html,
      /<div class="content-ref">\n<p><a href="https:\/\/example\.com\/gone" rel="noopener">gone\.md<\/a><\/p>\n<\/div>/,
      'the text as written',
    );
  });

  it('drops block tags it does not pair or show, keeping the markdown between, and never links javascript:', () => {
    const { html } = renderMarkdown(
      [
        '{% hint style="info" %}',
        'Never closed.',
        '',
        '> {% hint style="danger" %}',
        '> Inside a quote.',
        '',
        '{% endhint %}',
        '{% swagger method="get" %}',
        'Kept text.',
        '{% endswagger %}',
        '{% endtabs %}',
        '',
        '```md',
        '{% hint style="info" %}',
        '```',
        '',
        '[x](javascript:alert(1))',
      ].join('\n'),
    );
    // The hint opened before the quote pairs with the end tag after it; the one in the quote ends with the quote.
    assert.equal(html.match(/<aside/g)?.length, 1);
    assert.equal(html.match(/<\/aside>/g)?.length, 1);
    assert.match(html, /<blockquote>\n<p>Inside a quote\.<\/p>\n<\/blockquote>/);
    assert.match(html, /<p>Kept text\.<\/p>/);
    assert.match(html, /<code class="language-md">\{% hint style=&quot;info&quot; %\}\n<\/code>/, 'a tag in code stays code');
    assert.doesNotMatch(html, /swagger|endtabs|href="javascript/);
  });

  it('ends a paragraph at a block tag written right after it', () => {
    const { html } = renderMarkdown('{% hint style="success" %}\nDone.\n{% endhint %}\nAfter.');
    assert.match(html, /<aside class="hint hint-success" role="note">\n<p>Done\.<\/p>\n<\/aside>\n<p>After\.<\/p>/);
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
