import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { HttpError, parseInput } from '@quire/http';
import { sourceOf } from './ingest';
import { ingestBody } from './schemas';

const conversation = {
  id: 'c1',
  metadata: { url: 'https://support.example.com/1', attributes: { source: 'intercom' } },
  parts: [{ type: 'message', role: 'user', body: 'Hi' }],
};
const refusal = (body: unknown): string => {
  try {
    parseInput(ingestBody, body, 'body');
  } catch (error) {
    assert.ok(error instanceof HttpError);
    return error.message;
  }
  assert.fail('accepted');
};

describe('ingestion body', () => {
  it('accepts one conversation or a batch of them', () => {
    assert.equal((parseInput(ingestBody, conversation, 'body') as { id: string }).id, 'c1');
    assert.equal((parseInput(ingestBody, [conversation, { ...conversation, id: 'c2' }], 'body') as unknown[]).length, 2);
  });

  it('names the field that does not fit, in either form', () => {
    assert.match(refusal({ ...conversation, id: undefined }), /\bid\b/);
    assert.match(refusal({ ...conversation, parts: [] }), /\bparts\b/);
    assert.match(refusal([conversation, { ...conversation, parts: [{ type: 'message', role: 'user', body: '' }] }]), /1\.parts\.0\.body/);
    assert.match(refusal({ ...conversation, subject: 'x'.repeat(513) }), /\bsubject\b/);
    assert.match(refusal({ ...conversation, metadata: { url: 'javascript:alert(1)' } }), /metadata\.url/);
    assert.match(refusal([]), /body/);
  });

  it('takes the source from the attribute, else the address, else api', () => {
    assert.equal(sourceOf({ metadata: { attributes: { source: 'zendesk' } } }), 'zendesk');
    assert.equal(sourceOf({ metadata: { url: 'https://help.example.com/x', attributes: {} } }), 'help.example.com');
    assert.equal(sourceOf({ metadata: { attributes: {} } }), 'api');
  });
});
