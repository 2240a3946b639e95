// The first answer drawn before the WebAssembly core has loaded (web/first-result.js), in Debian's
// Chromium: on a load without a link the answer computed at build time is drawn at once and is exactly
// what the core draws once loaded (the bundled configuration is the one the page builds from the live
// schema: #output[data-early="confirmed"]); with a link nothing is drawn before the core has answered the
// link's question, so the starting question's answer is never on screen: the core's answer to the link is
// drawn as soon as the core has loaded, before the form is built, and is then confirmed by the answer
// the form gives; the single-file build the same.
// Every change of the verdict and of #output[data-early] is recorded from the document's creation on,
// so an answer on screen for a moment between two checks is seen too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DIST, launch, serve, watchedPage } from './harness.mjs';
import { load } from '../../dist/memplan.js';
import { formatBytes } from '../../web/format.js';
import { startingAnswer } from '../../web/first-result.js';

// The starting question's total, from the module the page runs.
const start = startingAnswer(await load());
const startTotal = formatBytes(start.per_gpu.total, start.unit);

let server, browser;
const allProblems = [];

before(async () => {
  server = await serve();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

/**
 * Records, from before the page's script runs, every distinct state of the verdict's text, the bar,
 * #output's data-early and whether #output[data-estimated] is set: window.firstLog.
 */
function recordVerdicts() {
  const log = window.firstLog = [];
  let last = '';
  const note = () => {
    const verdict = document.getElementById('verdict');
    const output = document.getElementById('output');
    if (!verdict || !output) return;
    const entry = { verdict: verdict.textContent, early: output.dataset.early ?? null,
      estimated: output.dataset.estimated ?? null, bar: document.getElementById('bar').getAttribute('aria-label') };
    const key = JSON.stringify(entry);
    if (key !== last) log.push(entry);
    last = key;
  };
  new MutationObserver(note).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
}

/** The verdict, the bar and the breakdown as shown (text, classes and widths). */
function answerShown(page) {
  return page.evaluate(() => ({
    verdict: document.getElementById('verdict').textContent,
    verdictClass: document.getElementById('verdict').className,
    bar: document.getElementById('bar').outerHTML,
    breakdown: document.querySelector('#breakdown tbody').outerHTML,
    warnings: document.getElementById('warnings').outerHTML,
  }));
}

/**
 * A page whose WASM is held back until `release()` is called: what the page shows before the core has
 * loaded stays on screen to be read.
 */
async function heldPage() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await context.route('**/memplan-core.wasm', async (route) => { await held; await route.continue(); });
  await context.addInitScript(recordVerdicts);
  const { page, problems } = await watchedPage(context, server.origin);
  allProblems.push(problems);
  return { page, release, context };
}

test('without a link the starting answer is drawn before the core loads, and the core draws exactly the same', async () => {
  const { page, release, context } = await heldPage();
  await page.goto(server.origin + '/index.html');
  await page.waitForSelector('#output[data-early="drawn"]');
  const early = await answerShown(page);
  // Drawn without the core: no estimate signal, no form yet, the loading text gone, the mark set.
  assert.equal(await page.getAttribute('#output', 'data-estimated'), null);
  assert.equal(await page.locator('[name="infer.context_len"]').count(), 0);
  assert.equal(await page.isHidden('#loading'), true);
  assert.equal(await page.isVisible('#breakdown'), true);
  assert.equal(await page.isHidden('#feature-panels'), true);  // views that need the core wait for it
  assert.match(early.verdict, new RegExp('^(Fits: |Does not fit: )' + startTotal.replace('.', '\\.') + ' '));
  assert.equal(await page.locator('#breakdown tbody tr').count(), 10);
  assert.ok(await page.locator('#bar .seg').count() >= 3);
  assert.equal(await page.evaluate(() => performance.getEntriesByName('memplan:first-result').length), 1);
  release();
  await page.waitForSelector('#output[data-computed]');
  // The core's own answer: the same configuration and numbers (data-early), drawn identically.
  assert.equal(await page.getAttribute('#output', 'data-early'), 'confirmed');
  assert.equal(await page.getAttribute('#output', 'data-estimated'), '1');
  assert.deepEqual(await answerShown(page), early);
  assert.equal(await page.isVisible('#feature-panels'), true);
  const log = await page.evaluate(() => window.firstLog);
  const answers = log.filter((e) => e.verdict !== 'Loading the calculator…');
  assert.deepEqual([...new Set(answers.map((e) => e.verdict))], [early.verdict]);  // never another text
  assert.deepEqual([...new Set(log.map((e) => e.early))], [null, 'drawn', 'confirmed']);
  const [first, second] = await page.evaluate(() => ['memplan:first-result', 'memplan:first-estimate'].map((n) => performance.getEntriesByName(n)[0].startTime));
  assert.ok(first < second, `${first} < ${second}`);
  await context.close();
});

// Links to other states, and links that set the starting state's own value or an unknown key (their
// state is the starting one; they are drawn from the core too, as is everything a link names).
const LINKS = [['#infer.context_len=32768', true], ['#model.preset=mixtral-8x7b', true], ['#mode=train', true],
  ['#parallel.gpus=1&embed=1', false], ['#not.a.key=1', false]];
for (const [link, otherState] of LINKS) {
  test(`with the link ${link} nothing is drawn before the core has answered the link's question`, async () => {
    const { page, release, context } = await heldPage();
    await page.goto(server.origin + '/index.html' + link);
    await page.waitForSelector('#verdict');
    await page.waitForTimeout(300);  // the page's script has run; the WASM is held back
    assert.equal(await page.textContent('#verdict'), 'Loading the calculator…');
    assert.equal(await page.isHidden('#output'), true);
    assert.equal(await page.locator('#bar .seg').count(), 0);
    assert.equal(await page.evaluate(() => performance.getEntriesByName('memplan:first-result').length), 0);
    release();
    await page.waitForSelector('#output[data-computed]');
    const log = await page.evaluate(() => window.firstLog);
    assert.ok(log.length >= 2, JSON.stringify(log));
    const final = await page.textContent('#verdict');
    // A link the page reads whole is answered by the core before the form is built (drawn, then confirmed
    // by the form's answer); one with a setting not understood waits for the form (no early answer).
    assert.deepEqual([...new Set(log.map((e) => e.early))], link === '#not.a.key=1' ? [null] : [null, 'drawn', 'confirmed']);
    for (const entry of log) {
      // Until the core's first answer the loading text or the link's own answer; the starting total never.
      if (entry.estimated === null) assert.ok(entry.verdict === 'Loading the calculator…' || entry.verdict === final, JSON.stringify(entry));
      if (otherState) assert.ok(!entry.verdict.includes(startTotal), `${entry.verdict} shows the starting total ${startTotal}`);
    }
    await context.close();
  });
}

test('a link typed while the core loads: the early answer gives way to the link\'s, unchecked and without an error', async () => {
  const { page, release, context } = await heldPage();
  await page.goto(server.origin + '/index.html');
  await page.waitForSelector('#output[data-early="drawn"]');
  await page.evaluate(() => { location.hash = 'infer.context_len=32768'; });
  release();
  await page.waitForSelector('#output[data-computed]');
  assert.equal(await page.getAttribute('#output', 'data-early'), 'superseded');
  assert.equal(await page.inputValue('[name="infer.context_len"]'), '32768');
  assert.ok(!(await page.textContent('#verdict')).includes(startTotal));
  await context.close();
});

test('the single-file build draws the starting answer before its core loads, the same as the core then draws', async () => {
  const offline = await browser.newContext();
  const problems = [];
  await offline.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    problems.push('network request: ' + url);
    return route.abort();
  });
  await offline.addInitScript(recordVerdicts);
  const page = await offline.newPage();
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  await page.goto('file://' + DIST + 'memplan.html');
  await page.waitForSelector('#output[data-computed]');
  assert.equal(await page.getAttribute('#output', 'data-early'), 'confirmed');
  const log = await page.evaluate(() => window.firstLog);
  const drawn = log.find((e) => e.early === 'drawn');
  assert.ok(drawn, JSON.stringify(log));
  assert.equal(drawn.estimated, null);
  assert.match(drawn.verdict, new RegExp('^(Fits: |Does not fit: )' + startTotal.replace('.', '\\.') + ' '));
  assert.equal(await page.textContent('#verdict'), drawn.verdict);
  assert.equal(await page.getAttribute('#bar', 'aria-label'), drawn.bar);
  // With a link, nothing before the core's answer (a new page: a new hash alone does not reload one).
  const other = await offline.newPage();
  other.on('pageerror', (e) => problems.push('page error: ' + e.message));
  await other.goto('file://' + DIST + 'memplan.html#infer.context_len=32768');
  await other.waitForSelector('#output[data-computed]');
  const linked = await other.evaluate(() => window.firstLog);
  assert.ok(linked.length >= 2, JSON.stringify(linked));
  assert.ok(linked.every((e) => !e.verdict.includes(startTotal)), JSON.stringify(linked));
  assert.equal(await other.getAttribute('#output', 'data-early'), 'confirmed');  // the link's own answer, drawn early
  assert.deepEqual(problems, []);
  await offline.close();
});

test('the WASM is compiled by index.html\'s inline script while app.js loads, and the page instantiates that module without fetching the file again', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const { page, problems } = await watchedPage(context, server.origin);
  allProblems.push(problems);
  await page.goto(server.origin + '/index.html#infer.context_len=32768');
  await page.waitForSelector('#output[data-computed]');
  const seen = await page.evaluate(async () => ({
    compiled: (await self.memplanWasm) instanceof WebAssembly.Module,
    fetched: performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/memplan-core.wasm')).length,
  }));
  assert.deepEqual(seen, { compiled: true, fetched: 1 });
  assert.equal(await page.getAttribute('#output', 'data-early'), 'confirmed');
  await context.close();
});

test('when the core cannot be loaded, the early answer is taken off the screen and the page says why', async () => {
  // Not a watched page: its failed request is the point of the test.
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  await context.route('**/memplan-core.wasm', (route) => route.abort());
  await context.addInitScript(recordVerdicts);
  const page = await context.newPage();
  await page.goto(server.origin + '/index.html');
  await page.waitForSelector('#loading:not([hidden])');
  await page.waitForFunction(() => document.getElementById('loading').textContent.startsWith('The calculator could not be loaded: '));
  const log = await page.evaluate(() => window.firstLog);
  assert.ok(log.some((e) => e.early === 'drawn' && e.verdict.includes(startTotal)), JSON.stringify(log));  // it was drawn
  assert.equal(await page.isHidden('#output'), true);
  assert.equal(await page.locator('#bar .seg').count(), 0);
  assert.equal(await page.getAttribute('#verdict', 'class'), 'verdict');
  assert.equal(await page.getAttribute('#verdict', 'data-fits'), null);
  assert.equal(await page.textContent('#verdict'), await page.textContent('#loading'));
  await context.close();
});

test('no page had a console error, a failed request or a request to another origin', () => {
  assert.deepEqual(allProblems.flat(), []);
});
