import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { instructionsText } from './instructions';
import { ProviderError, type TranslationProvider } from './providers';
import { assemble, segmentMarkdown, segmentsOf } from './segmenter';
import { batchesOf, translateSegments } from './translator';

const request = { source: 'en', target: 'fr', instructions: '' };

/** A provider in memory: upper-cases, records its calls, and mangles the texts `mangle` says. */
function memoryProvider(mangle: (text: string, call: number) => boolean = () => false, batch = { maxItems: 3, maxChars: 1_000 }) {
  const calls: string[][] = [];
  const provider: TranslationProvider = {
    label: 'memory',
    batch,
    async translate(texts) {
      calls.push([...texts]);
      return texts.map((text) => (mangle(text, calls.length) ? text.replace(/⟦\d+⟧/, '') : text.toUpperCase()));
    },
  };
  return { provider, calls };
}

describe('translations: translator', () => {
  it('cuts texts into batches by count and size, a long text alone', () => {
    assert.deepEqual(batchesOf(['a', 'b', 'c', 'd'], { maxItems: 3, maxChars: 100 }), [['a', 'b', 'c'], ['d']]);
    assert.deepEqual(batchesOf(['aaaa', 'bbbb', 'cc'], { maxItems: 10, maxChars: 6 }), [['aaaa'], ['bbbb', 'cc']]);
    assert.deepEqual(batchesOf(['x'.repeat(50), 'y'], { maxItems: 10, maxChars: 10 }), [['x'.repeat(50)], ['y']]);
    assert.deepEqual(batchesOf([], { maxItems: 3, maxChars: 10 }), []);
  });

  it('sends each distinct text once, in batches', async () => {
    const pieces = segmentMarkdown('One `a`.\n\nTwo.\n\nOne `a`.\n\nThree.\n\nFour.\n');
    const { provider, calls } = memoryProvider();
    const { byText, calls: count } = await translateSegments(provider, segmentsOf(pieces), request);
    assert.equal(count, 2);
    assert.deepEqual(calls.flat().sort(), ['Four.', 'One ⟦0⟧.', 'Three.', 'Two.']);
    assert.equal(
      assemble(pieces, (segment) => byText.get(segment.text)!),
      'ONE `a`.\n\nTWO.\n\nONE `a`.\n\nTHREE.\n\nFOUR.\n',
    );
  });

  it('asks again alone for a text whose placeholders did not come back, and fails when they still do not', async () => {
    const segments = segmentsOf(segmentMarkdown('Run `make` now.\n\nPlain text.\n'));
    const once = memoryProvider((text, call) => text.includes('⟦') && call === 1);
    const { byText } = await translateSegments(once.provider, segments, request);
    assert.equal(byText.get('Run ⟦0⟧ now.'), 'RUN ⟦0⟧ NOW.');
    assert.deepEqual(once.calls[1], ['Run ⟦0⟧ now.']);

    const always = memoryProvider((text) => text.includes('⟦'));
    await assert.rejects(translateSegments(always.provider, segments, request), ProviderError);
  });

  it('gives the instructions to the provider as plain text, one line per block', () => {
    const paragraph = (text: string) => ({ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text }] }] });
    const document = {
      object: 'document',
      data: {},
      nodes: [
        paragraph('Use the formal register.'),
        { object: 'block', type: 'list-unordered', nodes: [{ object: 'block', type: 'list-item', nodes: [paragraph('Keep "Quire" as is.')] }] },
      ],
    };
    assert.equal(instructionsText(document), 'Use the formal register.\nKeep "Quire" as is.');
    assert.equal(instructionsText({ nodes: [] }), '');
  });
});
