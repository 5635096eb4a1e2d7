import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { routeFor, serviceFor, siteRequestPath } from './routes';

describe('gateway route table', () => {
  const cases: Array<[string, string | undefined]> = [
    ['/v1/user', 'identity'],
    ['/v1/users/abc', 'identity'],
    ['/v1/orgs', 'identity'],
    ['/v1/orgs/o1', 'identity'],
    ['/v1/orgs/o1/members', 'identity'],
    ['/v1/orgs/o1/members/u1/teams', 'identity'],
    ['/v1/orgs/o1/ping', 'identity'],
    ['/v1/orgs/o1/teams/t1/members', 'identity'],
    ['/v1/orgs/o1/saml/p1', 'identity'],
    ['/v1/orgs/o1/sso', 'identity'],
    ['/v1/spaces/s1/change-requests/3/merge', 'content'],
    ['/v1/collections/c1/spaces', 'content'],
    ['/v1/orgs/o1/spaces', 'content'],
    ['/v1/orgs/o1/collections', 'content'],
    ['/v1/orgs/o1/change-requests', 'content'],
    ['/v1/orgs/o1/sites', 'publishing'],
    ['/v1/orgs/o1/sites/s1/share-links/l1', 'publishing'],
    ['/v1/integrations', 'integrations'],
    ['/v1/integrations/slack/events/e1', 'integrations'],
    ['/v1/orgs/o1/conversations', 'insights'],
    ['/v1/orgs/o1/conversations/c1', 'insights'],
    ['/v1/orgs/o1/conversations-issues/i1', 'insights'],
    ['/v1/orgs/o1/conversations-clusters', 'insights'],
    ['/v1/orgs/o1/translations/t1/run', 'insights'],
    ['/v1/orgs/o1/unknown', undefined],
    ['/v1/nothing', undefined],
    ['/v1/orgs/o1/sites/../members', undefined],
  ];
  for (const [path, service] of cases) {
    it(`${path} → ${service ?? 'no route'}`, () => assert.equal(serviceFor(path), service));
  }

  it('marks only the token-less browser and download routes public', () => {
    assert.deepEqual(routeFor('/v1/public/saml/p1/acs'), { service: 'identity', public: true });
    assert.deepEqual(routeFor('/v1/public/content/files/f1'), { service: 'content', public: true });
    assert.deepEqual(routeFor('/v1/orgs/o1/saml/p1'), { service: 'identity', public: false });
    assert.equal(routeFor('/v1/public/other'), undefined);
  });

  it('sends published sites to publishing: /sites/ on the API host, everything on other hosts', () => {
    const api = 'api.example.com';
    assert.equal(siteRequestPath(api, api, '/sites/o1/handbook/guide?x=1'), '/sites/o1/handbook/guide?x=1');
    assert.equal(siteRequestPath(api, api, '/v1/user'), undefined);
    assert.equal(siteRequestPath(api, api, '/sitesmap'), undefined);
    assert.equal(siteRequestPath('Docs.Example.com', api, '/guide/install?q=1'), '/hosted/docs.example.com/guide/install?q=1');
    assert.equal(siteRequestPath('docs.example.com', api, '/v1/user'), '/hosted/docs.example.com/v1/user', "a site's host is all the site's");
    for (const internal of ['localhost', '127.0.0.1', '10.1.2.3', '[::1]', 'gateway', 'quire-gateway.quire.svc', 'quire-gateway.quire.svc.cluster.local']) {
      assert.equal(siteRequestPath(internal, api, '/v1/user'), undefined, internal);
    }
  });
});
