import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { expectError, expectOk, sharedTestStack, type TestOrganization, type TestStack } from '@quire/testkit';

/**
 * Change requests linked to conversation insights clusters (`conversationsIssuesCluster`):
 * content asks insights whether the cluster is one of the space's organization.
 */
describe('change requests linked to insights clusters', () => {
  let stack: TestStack;
  let org: TestOrganization<'read'>;
  let other: TestOrganization<'read'>;
  let spaceId: string;
  let clusterId: string;
  let otherClusterId: string;

  /** Ingests one conversation and waits (bounded) for the cluster its issue joins. */
  const clusterFrom = async (organization: TestOrganization<'read'>, id: string): Promise<string> => {
    const conversation = {
      id,
      subject: 'Cannot reset my password',
      metadata: { url: 'https://support.example.com/tickets/1', attributes: {}, createdAt: new Date().toISOString() },
      parts: [
        { type: 'message', role: 'user', body: 'The password reset e-mail never arrives, I tried three times. How do I reset my password?' },
        { type: 'message', role: 'assistant', body: 'Sorry about that, we are looking into it.' },
      ],
    };
    expectOk(await organization.admin.api.post(`/v1/orgs/${organization.id}/conversations`, conversation), 204);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const issues = expectOk(await organization.admin.api.get(`/v1/orgs/${organization.id}/conversations-issues?conversation=${id}`));
      if (issues.items.length > 0) return issues.items[0].issue.cluster as string;
      assert.ok(Date.now() < deadline, 'the conversation was not processed within a minute');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  beforeAll(async () => {
    stack = await sharedTestStack();
    org = await stack.organization({ domain: 'linked.test', title: 'Linked', roles: ['read'] });
    other = await stack.organization({ domain: 'elsewhere.test', title: 'Elsewhere', roles: ['read'] });
    spaceId = expectOk(await org.admin.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'Docs' }), 201).id;
    [clusterId, otherClusterId] = await Promise.all([clusterFrom(org, 'ticket-1'), clusterFrom(other, 'ticket-1')]);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('links a change request to a cluster of its organization, and the lists filter by it', async () => {
    const linked = expectOk(
      await org.admin.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Explain password resets', conversationsIssuesCluster: clusterId }),
      201,
    );
    assert.equal(linked.conversationsIssuesCluster, clusterId);
    const unlinked = expectOk(await org.admin.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Unrelated' }), 201);
    assert.equal(unlinked.conversationsIssuesCluster, undefined);

    const inSpace = expectOk(await org.admin.api.get(`/v1/spaces/${spaceId}/change-requests?conversationsIssuesCluster=${clusterId}`));
    assert.deepEqual(
      inSpace.items.map((cr: { id: string }) => cr.id),
      [linked.id],
    );
    const inOrg = expectOk(await org.admin.api.get(`/v1/orgs/${org.id}/change-requests?conversationsIssuesCluster=${clusterId}`));
    assert.deepEqual(
      inOrg.items.map((cr: { id: string }) => cr.id),
      [linked.id],
    );

    // PATCH links the other one, then null unlinks it.
    const patched = expectOk(await org.admin.api.patch(`/v1/spaces/${spaceId}/change-requests/${unlinked.id}`, { conversationsIssuesCluster: clusterId }));
    assert.equal(patched.conversationsIssuesCluster, clusterId);
    const cleared = expectOk(await org.admin.api.patch(`/v1/spaces/${spaceId}/change-requests/${unlinked.id}`, { conversationsIssuesCluster: null }));
    assert.equal(cleared.conversationsIssuesCluster, undefined);
    assert.equal(expectOk(await org.admin.api.get(`/v1/spaces/${spaceId}/change-requests?conversationsIssuesCluster=${clusterId}`)).count, 1);
  });

  it("refuses an unknown cluster and another organization's alike (400 naming the field), creating nothing", async () => {
    const before = expectOk(await org.admin.api.get(`/v1/spaces/${spaceId}/change-requests`)).count;
    for (const cluster of ['no-such-cluster', otherClusterId]) {
      const refused = await org.admin.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Nope', conversationsIssuesCluster: cluster });
      expectError(refused, 400, 'conversationsIssuesCluster');
      assert.match(refused.body.error.message, /no such cluster in this organization/);
    }
    assert.equal(expectOk(await org.admin.api.get(`/v1/spaces/${spaceId}/change-requests`)).count, before);
    const target = expectOk(await org.admin.api.get(`/v1/spaces/${spaceId}/change-requests`)).items[0];
    expectError(
      await org.admin.api.patch(`/v1/spaces/${spaceId}/change-requests/${target.id}`, { conversationsIssuesCluster: otherClusterId }),
      400,
      'conversationsIssuesCluster',
    );
  });
});
