import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { chromium, type Browser } from 'playwright-core';
import { repoRoot } from '@quire/datastore';
import { sharedTestStack, type TestAccount, type TestStack } from '@quire/testkit';

/** Debian's Chromium (scripts/install-chromium.sh); CHROMIUM_PATH for another one. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(repoRoot(), 'test-artifacts');

/**
 * GET /docs in a real headless browser: the reference renders Quire's own document, finds an
 * operation, and "try it" calls this same server with the caller's token. The page loads
 * nothing from anywhere else; its screenshot is kept in test-artifacts/.
 */
describe('the API reference page in a browser', () => {
  let stack: TestStack;
  let browser: Browser;
  let user: TestAccount;

  beforeAll(async () => {
    stack = await sharedTestStack();
    user = await stack.account(['bootstrap', '--email', 'reader@reference.test', '--org', 'Reference']);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('shows the operations and calls the API from the page', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol !== 'data:' && url.origin !== new URL(stack.baseUrl).origin) elsewhere.push(request.url());
    });
    const response = await page.goto(`${stack.baseUrl}/docs#/content/post_v1_orgs__organizationId__spaces`);
    assert.equal(response?.status(), 200);
    assert.match(response?.headers()['content-security-policy'] ?? '', /default-src 'none'/);

    // An operation found by its address in the reference (deep link), with the summary its route declares.
    const createSpace = page.locator('#operations-content-post_v1_orgs__organizationId__spaces');
    await createSpace.getByText('Create a space', { exact: true }).waitFor({ timeout: 30_000 });
    assert.match(await createSpace.innerText(), /organizationId/);

    // "Try it": authorize with the caller's token, then run GET /v1/user from the page.
    await page.goto(`${stack.baseUrl}/docs#/identity/get_v1_user`);
    await page.reload();
    await page.locator('button.authorize').first().click();
    await page.locator('.auth-container input').first().fill(user.token);
    await page.locator('.auth-btn-wrapper button.authorize').click();
    await page.locator('.auth-btn-wrapper button.btn-done').click();
    // The reference renders the sections near the viewport only: scroll until the operation is there.
    const operation = page.locator('#operations-identity-get_v1_user');
    for (let i = 0; i < 100 && !(await operation.count()); i++) {
      await page.mouse.wheel(0, 500);
      await page.waitForTimeout(100);
    }
    if (!(await operation.locator('button.execute').isVisible())) await operation.locator('.opblock-summary-control').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    assert.match((await status.innerText()).trim(), /^200\b/);
    assert.match(await operation.locator('.live-responses-table').innerText(), /reader@reference\.test/, 'the response body the page received');

    mkdirSync(ARTIFACTS, { recursive: true });
    const screenshot = path.join(ARTIFACTS, 'api-reference.png');
    await page.screenshot({ path: screenshot, fullPage: false });
    assert.deepEqual(elsewhere, [], 'the page asks nothing of any other server');
    await page.close();
  });
});
