// Writes docs/screenshots/page-1366.png and page-390.png: the page as it opens (Llama 3.1 8B at 8k on
// one H100 80GB) at a laptop and a phone size, in Debian's Chromium (harness.mjs). Run after a build:
//   node tests/e2e/screenshots.mjs
// The answers of three tasks of the walk (task-*.png: a pasted config.json, ZeRO-2 against ZeRO-3,
// keyboard only) are written by their tests: MEMPLAN_SCREENSHOTS=1 node --test tests/e2e/tasks.test.mjs
import { fileURLToPath } from 'node:url';
import { launch, serve } from './harness.mjs';

const OUT = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
const server = await serve();
const browser = await launch();
try {
  for (const [width, height] of [[1366, 900], [390, 844]]) {
    const context = await browser.newContext({ viewport: { width, height }, colorScheme: 'light' });
    const page = await context.newPage();
    await page.goto(server.origin + '/index.html');
    await page.waitForSelector('#output[data-computed]');
    await page.screenshot({ path: `${OUT}page-${width}.png` });
    await context.close();
  }
} finally {
  await browser.close();
  server.stop();
}
