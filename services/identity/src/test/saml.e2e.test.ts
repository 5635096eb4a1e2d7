import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { inflateRawSync } from 'node:zlib';
import { generate } from 'selfsigned';
import { SignedXml } from 'xml-crypto';
import { apiClient, assertMatchesOpenApi, checkAnswer, expectError, expectOk, sharedTestStack, type ApiClient, type TestStack } from '@quire/testkit';

const IDP_ENTITY_ID = 'https://idp.example.test/metadata';
const IDP_SSO_URL = 'https://idp.example.test/sso';

/** A SAMLResponse as an identity provider sends it: the assertion signed with its key. */
function samlResponse(options: {
  privateKey: string;
  cert: string;
  acsURL: string;
  audience: string;
  inResponseTo: string;
  email: string;
  name?: string;
  validForMs?: number;
}): string {
  const now = Date.now();
  const iso = (offset: number) => new Date(now + offset).toISOString();
  const validFor = options.validForMs ?? 5 * 60_000;
  const notOnOrAfter = iso(validFor);
  // An expired response was also issued before it expired.
  const issueOffset = Math.min(0, validFor - 60_000);
  const assertion = `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a${randomUUID()}" Version="2.0" IssueInstant="${iso(issueOffset)}"><saml:Issuer>${IDP_ENTITY_ID}</saml:Issuer><saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${options.email}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}" Recipient="${options.acsURL}" InResponseTo="${options.inResponseTo}"/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="${iso(issueOffset - 60_000)}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${options.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="${iso(issueOffset)}" SessionIndex="_s1"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement><saml:AttributeStatement><saml:Attribute Name="displayName"><saml:AttributeValue>${options.name ?? 'Sam Sso'}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement></saml:Assertion>`;
  const response = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomUUID()}" Version="2.0" IssueInstant="${iso(issueOffset)}" Destination="${options.acsURL}" InResponseTo="${options.inResponseTo}"><saml:Issuer>${IDP_ENTITY_ID}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>${assertion}</samlp:Response>`;
  const signer = new SignedXml({
    privateKey: options.privateKey,
    publicCert: options.cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signer.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  signer.computeSignature(response, { location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' } });
  return signer.getSignedXml();
}

/** SAML providers, SSO login info and a real SAML sign-in, through the gateway. */
describe('identity: SAML providers and SSO login (end to end)', () => {
  let stack: TestStack;
  let orgId: string;
  let admin: ApiClient;
  let reader: ApiClient;
  let outsider: ApiClient;
  let teamId: string;
  let idp: { privateKey: string; cert: string };
  let providerId: string;
  let service: { acsURL: string; startURL: string; entityID: string };
  /** The SSO token of the user the identity provider created. */
  let newHire: ApiClient;

  const saml = (path = '') => `/v1/orgs/${orgId}/saml${path}`;
  const pathOf = (url: string) => new URL(url).pathname;
  /**
   * A browser's request to the public SAML endpoints (no redirect followed), its answer checked
   * against Quire's API document as the API clients' answers are.
   */
  const browser = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const response = await fetch(`${stack.baseUrl}${path}`, { redirect: 'manual', ...init });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    await checkAnswer(stack.baseUrl, init.method ?? 'GET', path, response.status, type, text && type.includes('json') ? JSON.parse(text) : text);
    return new Response(text, { status: response.status, headers: response.headers });
  };

  /** Opens the start URL as a browser would; returns the AuthnRequest id the IdP must answer. */
  const startLogin = async (): Promise<string> => {
    const started = await browser(pathOf(service.startURL));
    assert.equal(started.status, 302);
    const location = new URL(started.headers.get('location')!);
    assert.equal(`${location.origin}${location.pathname}`, IDP_SSO_URL);
    const request = inflateRawSync(Buffer.from(location.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
    assert.match(request, /AuthnRequest/);
    assert.ok(request.includes(service.acsURL), 'the request names our ACS');
    return /ID="([^"]+)"/.exec(request)![1];
  };
  const postResponse = (xml: string) =>
    browser(pathOf(service.acsURL), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ SAMLResponse: Buffer.from(xml).toString('base64') }).toString(),
    });
  const memberCount = async (search: string) => (await admin.get(`/v1/orgs/${orgId}/members?search=${encodeURIComponent(search)}`)).body.count;
  /** A complete sign-in of `email`: the response the identity provider signs for a request we sent. */
  const signIn = async (email: string) => {
    const response = await postResponse(samlResponse({ ...idp, acsURL: service.acsURL, audience: service.entityID, inResponseTo: await startLogin(), email }));
    return expectOk({ status: response.status, body: (await response.json()) as any });
  };

  beforeAll(async () => {
    stack = await sharedTestStack();
    const boss = await stack.account(['bootstrap', '--email', 'boss@saml-corp.test', '--org', 'Corp']);
    orgId = boss.organizationId;
    admin = apiClient(stack.baseUrl, boss.token);
    reader = apiClient(stack.baseUrl, (await stack.account(['add-member', '--org', orgId, '--email', 'reader@saml-corp.test', '--role', 'read'])).token);
    outsider = apiClient(stack.baseUrl, (await stack.account(['bootstrap', '--email', 'eve@saml-other.test', '--org', 'Other'])).token);
    teamId = (await admin.put(`/v1/orgs/${orgId}/teams`, { title: 'Everyone' })).body.id;
    const pems = await generate([{ name: 'commonName', value: 'idp.example.test' }], { keySize: 2048, algorithm: 'sha256' });
    idp = { privateKey: pems.private, cert: pems.cert };
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('creates providers (admins only) with validated fields and the service endpoints', async () => {
    const pending = await admin.post(saml(), { label: 'Draft' });
    assert.equal(pending.status, 201);
    assert.equal(pending.body.status, 'pending', 'not usable until configured');
    assert.equal((await admin.get('/v1/orgs/' + orgId + '/sso')).body.items.length, 0);

    const created = await admin.post(saml(), {
      label: 'Corp IdP',
      entityID: IDP_ENTITY_ID,
      ssoURL: IDP_SSO_URL,
      certificate: idp.cert,
      defaultTeam: teamId,
      defaultRole: 'edit',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assertMatchesOpenApi('OrganizationSAMLProvider', created.body);
    assert.equal(created.body.object, 'saml-provider');
    assert.equal(created.body.status, 'active');
    assert.equal(created.body.defaultTeam.id, teamId);
    assert.equal(created.body.defaultTeam.object, 'team');
    assert.equal(created.body.defaultRole, 'edit');
    assert.equal(created.headers.get('location'), created.body.urls.location);
    providerId = created.body.id;
    service = created.body.service;
    assert.equal(service.startURL, `${stack.baseUrl}/v1/public/saml/${providerId}/start`);
    assert.equal(service.acsURL, `${stack.baseUrl}/v1/public/saml/${providerId}/acs`);
    assert.equal(JSON.stringify(created.body).includes('PRIVATE KEY'), false);

    const bare = idp.cert.replace(/-----[A-Z ]+-----|\s/g, '');
    assert.equal((await admin.post(saml(), { label: 'Bare base64', certificate: bare })).status, 201, 'bare base64 certificates are accepted');

    for (const [body, field] of [
      [{}, 'label'],
      [{ label: '' }, 'label'],
      [{ label: 'x'.repeat(31) }, 'label'],
      [{ label: 'ok', entityID: 'e'.repeat(1025) }, 'entityID'],
      [{ label: 'ok', certificate: 'not a certificate' }, 'certificate'],
      [{ label: 'ok', certificate: 'QUJD' }, 'certificate'],
      [{ label: 'ok', certificate: 'A'.repeat(10001) }, 'certificate'],
      [{ label: 'ok', ssoURL: 'not a url' }, 'ssoURL'],
      [{ label: 'ok', ssoURL: `https://idp.test/${'a'.repeat(2048)}` }, 'ssoURL'],
      [{ label: 'ok', defaultRole: 'owner' }, 'defaultRole'],
      [{ label: 'ok', defaultTeam: 'no-such-team' }, 'defaultTeam'],
      [{ label: 'ok', secret: 'x' }, 'body'],
    ] as const) {
      const bad = await admin.post(saml(), body);
      assert.equal(bad.status, 400, JSON.stringify(body).slice(0, 80));
      assert.match(bad.body.error.message, new RegExp(field), JSON.stringify(body).slice(0, 80));
    }
    assert.equal((await reader.post(saml(), { label: 'Mine' })).status, 403);
    assert.equal((await outsider.post(saml(), { label: 'Theirs' })).status, 404);
  });

  it('reads, lists, updates and deletes providers; members see only the login info', async () => {
    const fetched = await admin.get(saml(`/${providerId}`));
    assert.equal(fetched.status, 200);
    assertMatchesOpenApi('OrganizationSAMLProvider', fetched.body);
    const listed = await admin.get(saml('?limit=2'));
    assert.equal(listed.status, 200);
    assert.equal(listed.body.count, 3);
    assert.equal(listed.body.items.length, 2);
    const rest = await admin.get(saml(`?limit=2&page=${listed.body.next.page}`));
    assert.equal(rest.body.items.length, 1);

    const patched = await admin.patch(saml(`/${providerId}`), { label: 'Corp SSO' });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.label, 'Corp SSO');
    assert.equal(patched.body.certificate, idp.cert, 'fields not sent stay');
    assert.equal((await admin.patch(saml(`/${providerId}`), { ssoURL: 'ftp//x' })).status, 400);
    assert.equal((await admin.patch(saml('/missing'), { label: 'x' })).status, 404);

    assert.equal((await reader.get(saml())).status, 403);
    assert.equal((await reader.get(saml(`/${providerId}`))).status, 403);
    assert.equal((await outsider.get(saml(`/${providerId}`))).status, 404);
    const sso = await reader.get(`/v1/orgs/${orgId}/sso`);
    assert.equal(sso.status, 200);
    assert.deepEqual(sso.body, { items: [{ id: providerId, label: 'Corp SSO', startURL: service.startURL }] });
    for (const item of sso.body.items) assertMatchesOpenApi('OrganizationSSOProviderLogin', item);
    assert.equal((await outsider.get(`/v1/orgs/${orgId}/sso`)).status, 404);

    const draft = (await admin.get(saml())).body.items.find((p: any) => p.label === 'Draft');
    assert.equal((await reader.delete(saml(`/${draft.id}`))).status, 403);
    assert.equal((await admin.delete(saml(`/${draft.id}`))).status, 204);
    assert.equal((await admin.delete(saml(`/${draft.id}`))).status, 204);
    assert.equal((await admin.get(saml(`/${draft.id}`))).status, 404);
  });

  it('signs a user in with a signed SAMLResponse: SSO member with the default role and team, and a token', async () => {
    const metadata = await browser(`/v1/public/saml/${providerId}/metadata`);
    assert.equal(metadata.status, 200);
    assert.match(await metadata.text(), /EntityDescriptor/);

    const requestId = await startLogin();
    const xml = samlResponse({
      ...idp,
      acsURL: service.acsURL,
      audience: service.entityID,
      inResponseTo: requestId,
      email: 'New.Hire@saml-corp.test',
      name: 'New Hire',
    });
    const accepted = await postResponse(xml);
    const body = (await accepted.json()) as any;
    assert.equal(accepted.status, 200, JSON.stringify(body));
    assert.equal(body.user.email, 'new.hire@saml-corp.test');
    assert.equal(body.organization.id, orgId);
    assert.match(body.token, /^qr_/);

    newHire = apiClient(stack.baseUrl, body.token);
    const me = await newHire.get('/v1/user');
    assert.equal(me.status, 200);
    assert.equal(me.body.email, 'new.hire@saml-corp.test');
    assert.equal(me.body.displayName, 'New Hire');
    const member = await admin.get(`/v1/orgs/${orgId}/members/${me.body.id}`);
    assert.equal(member.body.sso, true);
    assert.equal(member.body.role, 'edit');
    const team = await admin.get(`/v1/orgs/${orgId}/teams/${teamId}/members`);
    assert.deepEqual(
      team.body.items.map((i: any) => i.organization.id),
      [me.body.id],
    );

    const replay = await postResponse(xml);
    assert.equal(replay.status, 401, 'a response cannot be used twice');
    assert.equal(stack.output().includes(body.token), false, 'the issued token is never logged');
    assert.equal(stack.output().includes(Buffer.from(xml).toString('base64').slice(0, 200)), false, 'nor the SAMLResponse');
  });

  it('links existing members of the organization, never accounts it does not own', async () => {
    const respond = async (email: string) =>
      postResponse(samlResponse({ ...idp, acsURL: service.acsURL, audience: service.entityID, inResponseTo: await startLogin(), email }));
    // The reader exists and belongs to the organization: linked, keeping their role.
    const linked = await respond('Reader@saml-corp.test');
    assert.equal(linked.status, 200);
    const linkedBody = (await linked.json()) as any;
    const member = await admin.get(`/v1/orgs/${orgId}/members/${linkedBody.user.id}`);
    assert.equal(member.body.sso, true);
    assert.equal(member.body.role, 'read', 'signing in never changes the role of an existing member');

    // eve@saml-other.test has an account (admin of another organization): this IdP may not sign her in.
    const takeover = await respond('eve@saml-other.test');
    assert.equal(takeover.status, 403);
    assert.match(((await takeover.json()) as any).error.message, /admin must add it/);
    assert.equal(await memberCount('eve@saml-other.test'), 0, 'no membership was created');
    const eveOrgs = await outsider.get('/v1/orgs');
    assert.equal(eveOrgs.body.count, 1, 'her account is untouched');
  });

  it('scopes an SSO token to its organization: every other organization of the user answers 404', async () => {
    // A member of this organization who is admin of another one (B), with a normal CLI token.
    const dual = await stack.account(['bootstrap', '--email', 'dual@saml-corp.test', '--org', 'Dual B']);
    const orgB = dual.organizationId;
    await stack.account(['add-member', '--org', orgId, '--email', 'dual@saml-corp.test', '--role', 'read']);
    const mate = await stack.account(['add-member', '--org', orgB, '--email', 'mate@b.test', '--role', 'edit']);
    // The user this identity provider created becomes admin of B too, afterwards.
    await stack.account(['add-member', '--org', orgB, '--email', 'new.hire@saml-corp.test', '--role', 'admin']);
    const spaceB = expectOk(await dual.api.post(`/v1/orgs/${orgB}/spaces`, { title: 'B secrets' }), 201).id;
    expectOk(await dual.api.post(`/v1/orgs/${orgB}/sites`, { title: 'B site' }), 201);
    const sso = apiClient(stack.baseUrl, (await signIn('dual@saml-corp.test')).token);

    const outsideB = [
      `/v1/orgs/${orgB}`,
      `/v1/orgs/${orgB}/members`,
      `/v1/orgs/${orgB}/teams`,
      `/v1/orgs/${orgB}/spaces`,
      `/v1/spaces/${spaceB}`,
      `/v1/orgs/${orgB}/sites`,
      `/v1/users/${mate.userId}`,
    ];
    for (const [who, client] of [
      ['an SSO-linked member', sso],
      ['a user the identity provider created', newHire],
    ] as const) {
      for (const path of outsideB) expectError(await client.get(path), 404);
      expectError(await client.patch(`/v1/orgs/${orgB}`, { title: 'Taken over' }), 404);
      expectError(await client.post(`/v1/orgs/${orgB}/spaces`, { title: 'Planted' }), 404);
      expectError(await client.post(`/v1/orgs/${orgB}/sites`, { title: 'Planted' }), 404);
      const orgs = expectOk(await client.get('/v1/orgs'));
      assert.deepEqual(
        orgs.items.map((o: any) => o.id),
        [orgId],
        `${who}: only the SSO organization is listed`,
      );
      assert.equal(orgs.count, 1);
      expectError(await client.post('/v1/orgs', { title: 'Way out' }), 403);
      // Inside the organization the token works as usual.
      for (const path of [`/v1/orgs/${orgId}`, `/v1/orgs/${orgId}/spaces`, `/v1/orgs/${orgId}/sites`, '/v1/user']) expectOk(await client.get(path));
    }
    // The same user's normal token still reaches B, where nothing was changed.
    for (const path of outsideB) expectOk(await dual.api.get(path));
    assert.equal(expectOk(await dual.api.get(`/v1/orgs/${orgB}`)).title, 'Dual B');
    assert.equal(expectOk(await dual.api.get(`/v1/orgs/${orgB}/spaces`)).count, 1);
    assert.equal(expectOk(await dual.api.get(`/v1/orgs/${orgB}/sites`)).count, 1);
    assert.equal(expectOk(await dual.api.get('/v1/orgs')).count, 2);
  });

  it('signs the same member in eight times at once: eight tokens, one membership, one team membership', async () => {
    const twin = await stack.account(['add-member', '--org', orgId, '--email', 'twin@saml-corp.test', '--role', 'comment']);
    const responses = [];
    for (let i = 0; i < 8; i++)
      responses.push(
        samlResponse({ ...idp, acsURL: service.acsURL, audience: service.entityID, inResponseTo: await startLogin(), email: 'twin@saml-corp.test' }),
      );
    const answers = await Promise.all(
      responses.map(async (xml) => {
        const response = await postResponse(xml);
        return { status: response.status, body: (await response.json()) as any };
      }),
    );
    for (const answer of answers) expectOk(answer);
    assert.equal(new Set(answers.map((a) => a.body.token)).size, 8);
    assert.equal(await memberCount('twin@saml-corp.test'), 1);
    const member = expectOk(await admin.get(`/v1/orgs/${orgId}/members/${twin.userId}`));
    assert.equal(member.sso, true);
    assert.equal(member.role, 'comment');
    const team = expectOk(await admin.get(`/v1/orgs/${orgId}/teams/${teamId}/members?limit=100`));
    assert.equal(team.items.filter((i: any) => i.organization.id === twin.userId).length, 1);
  });

  it('refuses tampered, expired, unsolicited and foreign responses and creates nothing', async () => {
    const other = await generate([{ name: 'commonName', value: 'evil.test' }], { keySize: 2048, algorithm: 'sha256' });
    const cases: Array<[string, (id: string) => string, RegExp]> = [
      [
        'tampered',
        (id) =>
          samlResponse({ ...idp, acsURL: service.acsURL, audience: service.entityID, inResponseTo: id, email: 'victim@saml-corp.test' }).replace(
            'victim@saml-corp.test',
            'intruder@saml-corp.test',
          ),
        /signature/i,
      ],
      [
        'expired',
        (id) =>
          samlResponse({
            ...idp,
            acsURL: service.acsURL,
            audience: service.entityID,
            inResponseTo: id,
            email: 'late@saml-corp.test',
            validForMs: -10 * 60_000,
          }),
        /subject confirmation|expired|NotOnOrAfter/i,
      ],
      [
        'signed by another key',
        (id) =>
          samlResponse({
            privateKey: other.private,
            cert: other.cert,
            acsURL: service.acsURL,
            audience: service.entityID,
            inResponseTo: id,
            email: 'forged@saml-corp.test',
          }),
        /signature/i,
      ],
      [
        'for another audience',
        (id) => samlResponse({ ...idp, acsURL: service.acsURL, audience: 'https://elsewhere.test', inResponseTo: id, email: 'misdirected@saml-corp.test' }),
        /audience/i,
      ],
      [
        'unsolicited',
        () => samlResponse({ ...idp, acsURL: service.acsURL, audience: service.entityID, inResponseTo: '_never-asked', email: 'unasked@saml-corp.test' }),
        /InResponseTo/,
      ],
    ];
    for (const [name, make, reason] of cases) {
      const refused = await postResponse(make(await startLogin()));
      const error = ((await refused.json()) as any).error;
      assert.ok(refused.status >= 400 && refused.status < 500, `${name}: ${refused.status}`);
      assert.equal(error.code, refused.status);
      assert.match(error.message, reason, name);
    }
    for (const email of ['victim', 'intruder', 'late', 'forged', 'misdirected', 'unasked']) assert.equal(await memberCount(email), 0, email);

    const garbage = await browser(pathOf(service.acsURL), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'RelayState=x',
    });
    assert.equal(garbage.status, 400);
    assert.match(((await garbage.json()) as any).error.message, /SAMLResponse/);
    assert.equal((await browser('/v1/public/saml/missing/start')).status, 404);
  });

  it('serves service-provider metadata only for an active provider: 404 for unknown and unfinished ones, 400 for a malformed id', async () => {
    const metadata = (id: string) => browser(`/v1/public/saml/${id}/metadata`);
    const answer = async (response: Response) => ({ status: response.status, body: (await response.json()) as any });
    const pending = await admin.post(saml(), { label: 'Unfinished' });
    assert.equal(pending.body.status, 'pending');
    try {
      expectError(await answer(await metadata('missing')), 404, 'SAML provider');
      expectError(await answer(await metadata(pending.body.id)), 404, 'SAML provider');
      expectError(await answer(await metadata('p'.repeat(65))), 400, 'samlProviderId');
      const served = await metadata(providerId);
      assert.equal(served.status, 200);
      assert.match(served.headers.get('content-type') ?? '', /samlmetadata\+xml/);
      assert.ok((await served.text()).includes(service.acsURL), 'the metadata names our ACS');
    } finally {
      assert.equal((await admin.delete(saml(`/${pending.body.id}`))).status, 204);
    }
  });

  it('deleting the default team unsets it on the provider', async () => {
    assert.equal((await admin.delete(`/v1/orgs/${orgId}/teams/${teamId}`)).status, 204);
    const provider = await admin.get(saml(`/${providerId}`));
    assert.equal(provider.body.defaultTeam, undefined);
    assertMatchesOpenApi('OrganizationSAMLProvider', provider.body);
  });
});
