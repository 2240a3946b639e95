// Browser-test harness: a python3 http.server for dist/ on a free loopback port and Debian's
// Chromium driven by playwright-core (no downloaded browsers; headless flags for a container without a GPU or sandbox).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Starts `python3 -m http.server` on port 0 (the OS picks a free one); resolves {origin, stop}. */
export function serve(directory = DIST) {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', directory],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    const timer = setTimeout(() => { child.kill(); reject(new Error('http.server did not start: ' + text)); }, 10000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const m = text.match(/port (\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ origin: `http://127.0.0.1:${m[1]}`, stop: () => child.kill() });
      }
    });
    child.stderr.resume();
    child.on('error', reject);
  });
}

export function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/**
 * A page that records console errors, page errors and every request that leaves `origin`
 * (data: and blob: URLs are not requests to another origin).
 */
export async function watchedPage(context, origin) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('request', (r) => {
    const url = r.url();
    if (url.startsWith('data:') || url.startsWith('blob:')) return;
    if (!url.startsWith(origin + '/')) problems.push('request to another origin: ' + url);
  });
  page.on('requestfailed', (r) => problems.push('failed request: ' + r.url()));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  return { page, problems };
}

/**
 * One served dist/ and one Chromium for a test file: registers the node:test before/after hooks and
 * returns {server, browser, problems}, filled in before the first test runs. Tests push each page's
 * problem list (watchedPage) onto `problems`; after the last test, none may have been recorded.
 */
export function servedChromium() {
  const env = { server: null, browser: null, problems: [] };
  before(async () => {
    env.server = await serve();
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    env.server?.stop();
    assert.deepEqual(env.problems.flat(), []);
  });
  return env;
}

/** Opens the Plan panel, asks for `gpus` GPUs (min and max) and a global batch, runs it and waits for the plan. */
export async function runPlan(page, gpus, globalBatch) {
  await page.locator('#plan-panel > summary').click();
  await page.fill('#plan-min-gpus', String(gpus));
  await page.fill('#plan-max-gpus', String(gpus));
  await page.fill('#plan-global-batch', String(globalBatch));
  await page.click('#plan-run');
  await page.waitForSelector('#plan-panel[data-planned]');
}
