import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { defaultLevelInForce, resolveDefaultLevel, resolveEffectiveRole, resolveSpaceRole, spacePermissions, weakestRole } from './roles';

const member = (orgRole: Parameters<typeof weakestRole>[0]) => ({ member: true, orgRole });

describe('effective role (design.md §4)', () => {
  it('gives nothing to non-members, whatever the grants', () => {
    assert.equal(resolveEffectiveRole({ standing: { member: false, orgRole: 'admin' }, levels: ['inherit'], grants: ['admin'] }), null);
  });

  it('makes organization admins admins of everything, even of guest-level content', () => {
    assert.equal(resolveEffectiveRole({ standing: member('admin'), levels: [null], grants: [] }), 'admin');
  });

  it('inherits up the collection chain; an all-inherit chain ends at the org role', () => {
    assert.equal(resolveDefaultLevel(['inherit', 'inherit', 'comment', 'edit']), 'comment');
    assert.equal(resolveDefaultLevel(['inherit', 'inherit']), 'inherit');
    assert.equal(resolveEffectiveRole({ standing: member('edit'), levels: ['inherit', 'inherit'], grants: [] }), 'edit');
  });

  it('presents the level in force: an all-inherit chain is the level admin (the org role), null stays null', () => {
    assert.equal(defaultLevelInForce(['inherit', 'inherit']), 'admin');
    assert.equal(defaultLevelInForce(['inherit', 'read', 'edit']), 'read');
    assert.equal(defaultLevelInForce(['inherit', null, 'edit']), null);
    assert.equal(defaultLevelInForce(['comment', 'inherit']), 'comment');
    for (const orgRole of ['read', 'comment', 'edit', 'review', 'create'] as const) {
      const levels = ['inherit', 'inherit'] as const;
      assert.equal(
        resolveEffectiveRole({ standing: member(orgRole), levels, grants: [] }),
        resolveEffectiveRole({ standing: member(orgRole), levels: [defaultLevelInForce(levels)], grants: [] }),
      );
    }
  });

  it('caps a default level at the org role: base = min(org role, level)', () => {
    assert.equal(resolveEffectiveRole({ standing: member('read'), levels: ['edit'], grants: [] }), 'read');
    assert.equal(resolveEffectiveRole({ standing: member('create'), levels: ['comment'], grants: [] }), 'comment');
  });

  it('gives members nothing on guest-level (null) content unless granted', () => {
    assert.equal(resolveEffectiveRole({ standing: member('create'), levels: [null], grants: [] }), null);
    assert.equal(resolveEffectiveRole({ standing: member('read'), levels: [null], grants: ['review'] }), 'review');
  });

  it('gives guests only their grants', () => {
    assert.equal(resolveEffectiveRole({ standing: member(null), levels: ['inherit'], grants: [] }), null);
    assert.equal(resolveEffectiveRole({ standing: member(null), levels: ['admin'], grants: [] }), null);
    assert.equal(resolveEffectiveRole({ standing: member(null), levels: ['inherit'], grants: ['comment', 'read'] }), 'comment');
  });

  it('takes the strongest of base and grants', () => {
    assert.equal(resolveEffectiveRole({ standing: member('edit'), levels: ['inherit'], grants: ['read'] }), 'edit');
    assert.equal(resolveEffectiveRole({ standing: member('read'), levels: ['inherit'], grants: ['admin'] }), 'admin');
  });

  it('opens in-collection spaces to whoever can access the parent collection', () => {
    const input = { standing: member('edit'), spaceLevel: null, chainLevels: ['read' as const], grants: [] };
    assert.equal(resolveSpaceRole({ ...input, visibility: 'private' }), null);
    assert.equal(resolveSpaceRole({ ...input, visibility: 'in-collection' }), 'read');
  });

  it('computes permissions from the same role table', () => {
    assert.deepEqual(spacePermissions('review'), {
      view: true,
      access: true,
      comment: true,
      edit: true,
      review: true,
      merge: true,
      triggerGitSync: true,
      viewInviteLinks: false,
      installIntegration: false,
      admin: false,
    });
    assert.ok(Object.values(spacePermissions(null)).every((v) => v === false));
  });
});
