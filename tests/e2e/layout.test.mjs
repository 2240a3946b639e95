// Every view readable at a phone size (390×844) and a laptop size (1366×900): no sideways scrolling,
// every table inside its container with no cell's content cut off, ZeRO stages side by side with
// row labels in whole words, every list wide enough for the option it shows, and axe-core (run inside
// Chromium) finding no accessibility violation, in the light and the dark theme.
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { launch, serve } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SIZES = [[390, 844], [1366, 900]];
/** The views: inference (the starting question, the serving engine on, pinned setups) and training (ZeRO stages). */
const VIEWS = [['inference', '#infer.engine=vllm&pin=infer.batch%3D4'], ['training', '#mode=train&parallel.gpus=8&parallel.zero_stage=1']];

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); server?.stop(); });

/** What overflows in the page as laid out now: a list of readable problems ([] when none). */
function overflows() {
  const problems = [];
  const visible = (n) => n.getClientRects().length > 0 && getComputedStyle(n).visibility !== 'hidden';
  const name = (n) => n.id ? '#' + n.id : n.tagName.toLowerCase() + (n.className && typeof n.className === 'string' ? '.' + n.className.split(' ')[0] : '') +
    (n.name ? `[name="${n.name}"]` : '') + ` "${(n.textContent || '').trim().slice(0, 30)}"`;
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width + 1) problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
  for (const table of document.querySelectorAll('table')) {
    if (!visible(table)) continue;
    const box = table.getBoundingClientRect();
    let holder = table.parentElement;  // the nearest ancestor with a box of its own (a narrow layout uses display: contents)
    while (holder.parentElement && getComputedStyle(holder).display === 'contents') holder = holder.parentElement;
    const parent = holder.getBoundingClientRect();
    if (box.right > parent.right + 1 || box.left < parent.left - 1) problems.push(`${name(table)} leaves its container: ${Math.round(box.left)}…${Math.round(box.right)} in ${Math.round(parent.left)}…${Math.round(parent.right)}`);
    for (const cell of table.querySelectorAll('th, td')) {
      if (!visible(cell)) continue;
      if (cell.scrollWidth > cell.clientWidth + 1) problems.push(`${name(table)} cell ${name(cell)} is cut: ${cell.scrollWidth} > ${cell.clientWidth}`);
    }
  }
  for (const control of document.querySelectorAll('input, select, button, summary, textarea')) {
    if (!visible(control) || control.type === 'hidden' || control.closest('.visually-hidden, .skip')) continue;
    const box = control.getBoundingClientRect();
    if (box.right > width + 1) problems.push(`${name(control)} ends at ${Math.round(box.right)} px of ${width}`);
    if (control.tagName === 'SELECT' && control.selectedOptions[0]) {
      const style = getComputedStyle(control);
      const context = document.createElement('canvas').getContext('2d');
      context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const text = context.measureText(control.selectedOptions[0].textContent).width;
      const room = control.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;  // the arrow
      if (text > room + 1) problems.push(`${name(control)} cuts "${control.selectedOptions[0].textContent}": ${Math.round(text)} px in ${Math.round(room)}`);
    }
  }
  // ZeRO stages side by side: row labels in whole words, not a letter a line.
  for (const th of document.querySelectorAll('#zero th[scope="row"]')) {
    if (!visible(th)) continue;
    const longest = Math.max(...th.textContent.split(/\s+/).map((w) => w.length));
    const lines = Math.round(th.getBoundingClientRect().height / parseFloat(getComputedStyle(th).lineHeight || '16'));
    if (th.getBoundingClientRect().width < 60 || lines > th.textContent.length / Math.max(longest, 1) + 1)
      problems.push(`ZeRO row label "${th.textContent}" is ${Math.round(th.getBoundingClientRect().width)} px wide over ${lines} lines`);
  }
  return problems;
}

for (const [width, height] of SIZES) {
  for (const [view, hash] of VIEWS) {
    test(`${width}×${height}, ${view}: nothing scrolls sideways, no table or control leaves its container or cuts its text; axe finds nothing`, async () => {
      const context = await browser.newContext({ viewport: { width, height }, bypassCSP: true });  // axe is injected as an inline script
      const page = await context.newPage();
      await page.goto(server.origin + '/index.html' + hash);
      await page.waitForSelector('#output[data-computed]');
      await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });  // every view open
      await page.waitForSelector('#output[data-computed]');
      await page.addScriptTag({ path: path.join(ROOT, 'node_modules/axe-core/axe.min.js') });
      for (const theme of ['light', 'dark']) {
        await page.selectOption('#theme', theme);
        assert.deepEqual(await page.evaluate(overflows), [], `${theme} theme`);
        const violations = await page.evaluate(async () =>
          (await window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'best-practice'] })).violations
            .map((v) => `${v.id}: ${v.nodes.slice(0, 5).map((n) => n.target.join(' ')).join(', ')}`));
        assert.deepEqual(violations, [], `${theme} theme`);
      }
      await context.close();
    });
  }
}
