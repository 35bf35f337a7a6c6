import { chromium, type Browser, type Page, type Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, serveGenerated, type RunningServer } from '../helpers/project.js';
import { databaseUrl } from '../helpers/database.js';
import { SECRET, token } from '../helpers/tokens.js';

/**
 * The docs page in a real browser (Debian's Chromium, driven by playwright-core): under the blog's /api/v1 prefix,
 * with and without a trailing slash, every asset loads, the operations render, and "Try it out" calls the server
 * under its prefix. (Playwright gives the browser a fresh, throwaway profile.)
 */
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  ({ server } = await serveGenerated(
    `${ROOT}/examples/blog.yaml`,
    'e2e-docs-page',
    { DATABASE_URL: await databaseUrl('docs_page'), JWT_SECRET: SECRET },
    '/api/v1/healthz',
  ));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Opens the operation `method path` on the page, clicks "Try it out" then "Execute", and returns the answer. */
async function tryItOut(page: Page, method: string, path: string): Promise<Response> {
  const operation = page
    .locator(`.opblock-${method}`)
    .filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) })
    .first();
  await operation.locator('.opblock-summary').click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  const answer = page.waitForResponse(
    (r) => r.url().endsWith(`/api/v1${path}`) && r.request().method() === method.toUpperCase(),
  );
  await operation.getByRole('button', { name: 'Execute' }).click();
  return answer;
}

describe('the docs page under a prefix', () => {
  it.each(['/api/v1/docs', '/api/v1/docs/'])('%s loads every asset and renders the operations', async (path) => {
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    page.on('requestfailed', (request) => failed.push(`failed ${request.url()}`));
    await page.goto(`${server.url}${path}`);
    await page.waitForSelector('.opblock', { timeout: 20_000 });
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
    expect(failed).toEqual([]);
    await page.close();
  });

  it('"Try it out" calls the server under its prefix', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/api/v1/docs/`);
    const response = await tryItOut(page, 'get', '/healthz');
    expect(response.url()).toBe(`${server.url}/api/v1/healthz`);
    expect(response.status()).toBe(200);
    await page.close();
  });

  it('"Try it out" with the pre-filled example creates a record on an empty database', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/api/v1/docs/`);
    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('.modal-ux input[type=text]').fill(await token('root', { roles: ['admin'] }));
    await page.locator('.modal-ux .auth-btn-wrapper .authorize').click();
    await page.locator('.modal-ux .btn-done').click();
    const response = await tryItOut(page, 'post', '/users');
    expect(response.status()).toBe(201);
    expect(await response.json()).toMatchObject({ email: 'sample1@example.com' });
    await page.close();
  });
});
