import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { clip, extractIssues, termLikeness } from './extract';
import { sentencesOf, termsOf } from './nlp';

describe('conversation text (winkNLP)', () => {
  it('finds questions and problems, and keeps content lemmas only', () => {
    const [greeting, problem, question, thanks] = sentencesOf(
      "Hi there! I can't reset my password, the e-mail never arrives. How do I change it? Thanks a lot.",
    );
    assert.deepEqual(greeting.terms, []);
    assert.equal(problem.problem, true);
    assert.ok(problem.terms.includes('password') && problem.terms.includes('email') && problem.terms.includes('reset'), problem.terms.join(' '));
    assert.equal(question.question, true);
    assert.deepEqual(thanks.terms, []);
    assert.deepEqual(termsOf('Uploading images fails'), ['upload', 'image', 'fail']);
  });

  it('marks sentences that change the topic', () => {
    assert.equal(sentencesOf('Also, the search does not find my pages.')[0].shift, true);
    assert.equal(sentencesOf('The search does not find my pages.')[0].shift, false);
  });
});

describe('issue extraction (default pipeline)', () => {
  it('makes one issue of one problem, titled by the subject, summarised with the user’s own sentences', () => {
    const issues = extractIssues({
      subject: 'Password reset email not arriving',
      parts: [
        {
          role: 'user',
          body: 'Hello, I requested a password reset but the email never arrived. I checked the spam folder. How can I reset my password? Thanks!',
        },
        { role: 'assistant', body: 'Sorry about that, can you check your spam folder?' },
      ],
    });
    assert.equal(issues.length, 1);
    assert.equal(issues[0].title, 'Password reset email not arriving');
    assert.equal(issues[0].summary, 'Hello, I requested a password reset but the email never arrived. How can I reset my password?');
    assert.ok(!issues[0].summary.includes('Sorry'), 'the team’s answer is not the user’s issue');
    assert.ok(issues[0].terms.includes('password'));
  });

  it('splits a conversation where the user moves on to something unrelated', () => {
    const issues = extractIssues({
      parts: [{ role: 'user', body: 'The PDF export of our space fails with an error. Also, how do I invite new teammates to the organization?' }],
    });
    assert.equal(issues.length, 2);
    assert.match(issues[0].title, /PDF export/);
    assert.match(issues[1].title, /invite new teammates/);
  });

  it('keeps follow-ups on the same topic in the same issue, and finds nothing in small talk', () => {
    const issues = extractIssues({
      parts: [
        { role: 'user', body: 'Our custom domain shows a certificate error.' },
        { role: 'team-member', body: 'Which domain is it?' },
        { role: 'user', body: 'The domain is docs.example.com and the certificate error is still there.' },
      ],
    });
    assert.equal(issues.length, 1);
    assert.deepEqual(extractIssues({ parts: [{ role: 'user', body: 'Hi! Thanks so much, have a nice day.' }] }), []);
  });

  it('titles from the first question when there is no subject, clipped at a word', () => {
    const [issue] = extractIssues({ parts: [{ role: 'user', body: 'Search results are outdated. Why does search still show deleted pages?' }] });
    assert.equal(issue.title, 'Why does search still show deleted pages?');
    assert.equal(clip('one two three four', 10), 'one two…');
    assert.ok(clip('x'.repeat(300), 100).length <= 100);
  });

  it('compares term lists by cosine', () => {
    assert.equal(termLikeness(['a', 'b'], ['a', 'b']), 1);
    assert.equal(termLikeness(['a'], ['b']), 0);
    assert.equal(termLikeness([], ['b']), 0);
  });
});
