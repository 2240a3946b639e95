// The page in Debian's Chromium: seed examples typed into the form, fit verdict, URL round trip,
// chart, error display, malformed links, embed mode, the single-file build from file:// offline,
// no console errors and no request to another origin.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DIST, launch, serve, watchedPage } from './harness.mjs';
import { load } from '../../dist/memplan.js';
import { formatBytes } from '../../web/format.js';
import { buildConfig, defaultState } from '../../web/state.js';

// The default view's total, from the same module the page uses (the formulas evolve in the core).
const mp = await load();
const defaultTotal = formatBytes(mp.estimate(buildConfig(defaultState()).config).per_gpu.total, 'GiB');
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let server, browser, context;
const allProblems = [];

before(async () => {
  server = await serve();
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
});

after(async () => {
  await browser?.close();
  server?.stop();
});

async function open(path) {
  const { page, problems } = await watchedPage(context, server.origin);
  allProblems.push(problems);
  await page.goto(server.origin + path);
  await page.waitForSelector('#output:not([hidden])');
  return { page, problems };
}

/** Sets a form field by its name (text inputs are typed, so input events fire as for a user). */
async function set(page, name, value) {
  const input = page.locator(`[name="${name}"]`);
  const type = await input.first().getAttribute('type');
  if (type === 'checkbox') await input.setChecked(value);
  else if (type === 'radio') await page.locator(`[name="${name}"][value="${value}"]`).check();
  else if (await input.evaluate((n) => n.tagName) === 'SELECT') await input.selectOption(String(value));
  else await input.fill(String(value));
}

/** Waits until the debounced recompute has run with the current form. */
async function settled(page) {
  await page.waitForTimeout(150);
}

/** Exact bytes of a breakdown row, read from its title ("80,000,000,000 bytes"). */
async function rowBytes(page, row) {
  const title = await page.locator(`#breakdown tr[data-row="${row}"] td.num`).first().getAttribute('title');
  return Number(title.replace(/[^0-9]/g, ''));
}

test('the default view: the seed model on 8 × H100 with a verdict, breakdown, ZeRO table and chart', async () => {
  const { page } = await open('/index.html');
  assert.match(await page.textContent('#verdict'), new RegExp('^Does not fit: ' + escape(defaultTotal) + ' per GPU'));
  assert.equal(await page.locator('#breakdown tbody tr').count(), 6);  // 5 non-zero parts + total
  assert.equal(await page.locator('#zero thead th').count(), 5);
  assert.equal(await page.locator('#chart path.series').count(), 4);
  assert.equal(await page.locator('#chart line.capacity-line').count(), 1);
  assert.equal(await page.locator('#chart path.series.chosen').getAttribute('data-stage'), '1');
  assert.ok(await page.locator('#suggestions li button').count() >= 3);
  const text = await page.textContent('body');
  assert.doesNotMatch(text, /NaN|Infinity|undefined/);
});

test("the card's worked example typed in: 7e9 parameters on 8 GPUs hold 112 / 38.5 / 26.25 / 14 GB of model states", async () => {
  const { page } = await open('/index.html');
  await set(page, 'model.params', '7e9');
  await set(page, 'unit', 'GB');
  const expected = [112e9, 38.5e9, 26.25e9, 14e9];
  for (const stage of [0, 1, 2, 3]) {
    await set(page, 'parallel.zero_stage', stage);
    await settled(page);
    const states = await rowBytes(page, 'weights') + await rowBytes(page, 'gradients') + await rowBytes(page, 'optimizer_states');
    assert.equal(states, expected[stage], `stage ${stage}`);
  }
  assert.match(await page.textContent('#breakdown tr[data-row="weights"] td.num'), /^1\.750 GB$/);  // 14 GB / 8 (stage 3)
});

test("the card's inverse: 80 GB on 8 GPUs fits 5e9 / 14,545,454,545 / 40e9 parameters of model states", async () => {
  const { page } = await open('/index.html');
  const cells = await page.locator('#zero tbody tr:nth-child(3) td').allTextContents();
  assert.deepEqual(cells, ['5B (5,000,000,000)', '14.55B (14,545,454,545)', '21.33B (21,333,333,333)', '40B (40,000,000,000)']);
});

test('the verdict turns to "fits" with headroom, and a suggestion applies', async () => {
  const { page } = await open('/index.html');
  await set(page, 'train.recompute', 'full');
  await set(page, 'parallel.zero_stage', '3');
  await set(page, 'gpu.preset', 'h200-141');
  await settled(page);
  assert.equal(await page.getAttribute('#verdict', 'data-fits'), 'true');
  assert.match(await page.textContent('#verdict'), /^Fits: .* GiB of 131\.32 GiB per GPU, .* GiB headroom\.$/);
  await set(page, 'gpu.preset', 'rtx4090-24');
  await settled(page);
  assert.equal(await page.getAttribute('#verdict', 'data-fits'), 'false');
  const gpusBefore = await page.inputValue('[name="parallel.gpus"]');
  await page.locator('#suggestions button[data-field="parallel.gpus"]').click();
  await settled(page);
  assert.equal(await page.inputValue('[name="parallel.gpus"]'), String(2 * Number(gpusBefore)));
});

test('the URL holds the whole state: a link reproduces the view', async () => {
  const { page } = await open('/index.html');
  await set(page, 'mode', 'infer');
  await set(page, 'model.preset', 'llama3-8b');
  await set(page, 'infer.batch', '32');
  await set(page, 'infer.context_len', '8192');
  await set(page, 'gpu.preset', 'custom');
  await set(page, 'gpu.custom_gb', '48');
  await set(page, 'unit', 'GB');
  await settled(page);
  const url = page.url();
  assert.match(url, /#.*mode=infer/);
  const verdict = await page.textContent('#verdict');
  const { page: copy } = await open(url.slice(server.origin.length));
  assert.equal(await copy.textContent('#verdict'), verdict);
  assert.equal(await copy.inputValue('[name="infer.context_len"]'), '8192');
  assert.equal(await copy.inputValue('[name="model.vocab_size"]'), '128256');
  assert.equal(await copy.isChecked('[name="unit"][value="GB"]'), true);
  assert.equal(await copy.isHidden('#notice'), true);
});

test('bad input shows a message naming the field, never NaN', async () => {
  const { page } = await open('/index.html');
  await set(page, 'parallel.gpus', 'abc');
  await settled(page);
  assert.match(await page.textContent('#errors'), /parallel\.gpus: must be a number/);
  assert.equal(await page.getAttribute('[name="parallel.gpus"]', 'aria-invalid'), 'true');
  await set(page, 'parallel.gpus', '8');
  await set(page, 'parallel.tp', '3');
  await settled(page);
  assert.match(await page.textContent('#errors'), /parallel\.gpus: must be a multiple of parallel\.tp × parallel\.pp \(3\)/);
  await set(page, 'parallel.tp', '16');
  await set(page, 'parallel.gpus', '16');
  await set(page, 'model.num_attention_heads', '24');
  await set(page, 'model.hidden_size', '6144');
  await settled(page);
  assert.match(await page.textContent('#errors'), /parallel\.tp: must divide model\.num_attention_heads \(24\)/);
  await set(page, 'train.seq_len', '-5');
  await settled(page);
  assert.match(await page.textContent('#errors'), /train\.seq_len/);
  await set(page, 'gpu.preset', 'custom');
  await set(page, 'gpu.custom_gb', '0');
  await settled(page);
  assert.match(await page.textContent('#errors'), /gpu\.memory_bytes: must be a size in GB/);
  assert.doesNotMatch(await page.textContent('body'), /NaN|Infinity/);
  // Back to valid input: the error goes away.
  await set(page, 'gpu.preset', 'h100-80');
  await set(page, 'train.seq_len', '2048');
  await set(page, 'parallel.tp', '8');
  await settled(page);
  assert.equal(await page.isHidden('#errors'), true);
});

test('a malformed or hostile link falls back to defaults with a visible notice', async () => {
  const { page } = await open('/index.html#parallel.gpus=abc&evil=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&mode=train&train.recompute=drop%20table');
  assert.equal(await page.isVisible('#notice'), true);
  assert.match(await page.textContent('#notice'), /parallel\.gpus, evil, train\.recompute/);
  assert.equal(await page.inputValue('[name="parallel.gpus"]'), '8');
  assert.equal(await page.locator('img').count(), 0);
  assert.match(await page.textContent('#verdict'), new RegExp('^Does not fit: ' + escape(defaultTotal)));
});

test('embed mode (?embed=1) shows the form and the answer only', async () => {
  const { page } = await open('/index.html?embed=1#parallel.zero_stage=3');
  assert.equal(await page.isVisible('#verdict'), true);
  assert.equal(await page.isHidden('.page-header'), true);
  assert.equal(await page.isHidden('#zero-section'), true);
  assert.match(page.url(), /\?embed=1#/);
  const docs = await watchedPage(context, server.origin);
  allProblems.push(docs.problems);
  await docs.page.goto(server.origin + '/embed-example.html');
  const frame = docs.page.frameLocator('iframe.memplan-embed');
  await frame.locator('#verdict:not(:empty)').waitFor();
  assert.match(await frame.locator('#verdict').textContent(), /GiB/);
});

test('the single-file build works from file:// with every network request blocked', async () => {
  const offline = await browser.newContext();
  const problems = [];
  await offline.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
    problems.push('network request: ' + url);
    return route.abort();
  });
  const page = await offline.newPage();
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  await page.goto('file://' + DIST + 'memplan.html#parallel.zero_stage=3&unit=GB');
  await page.waitForSelector('#output:not([hidden])');
  assert.match(await page.textContent('#verdict'), /GB/);
  assert.equal(await page.locator('#chart path.series').count(), 4);
  await page.fill('[name="model.params"]', '7e9');
  await page.waitForTimeout(150);
  assert.match(await page.textContent('#breakdown tr[data-row="weights"] td.num'), /^1\.750 GB$/);
  assert.equal(await page.locator('script[src]').count(), 0);
  assert.deepEqual(problems, []);
  await offline.close();
});

test('no page had a console error, a failed request or a request to another origin', () => {
  assert.deepEqual(allProblems.flat(), []);
});
