// <memplan-estimate> in Debian's Chromium: on a plain HTML page (dist/estimate-example.html), on a real
// MkDocs site (Debian's mkdocs, a Markdown page) and on a real Sphinx site (Debian's python3-sphinx, a
// reStructuredText page), each built here and embedding two elements. The answer is the core's
// (compared with mp.estimate of the same configuration), an attribute change re-renders and fires
// memplan-change, invalid attributes are named inline with the core's ranges, a config URL that fails
// is reported briefly, the WASM loads once per page, axe-core finds no violation, and there is no
// console error and no request to another origin.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DIST, launch, serve, watchedPage } from './harness.mjs';
import { load } from '../../dist/memplan.js';
import { formatBytes } from '../../web/format.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const mp = await load();
const h100 = mp.gpus().find((g) => g.id === 'h100-sxm-80gb').capacity_bytes;
const hfConfig = JSON.parse(await readFile(path.join(ROOT, 'tests/data/hf_llama2_7b_config.json'), 'utf8'));
const API_FILES = ['memplan-api.js', 'memplan-lite.js', 'memplan-estimate-core.js', 'memplan-estimate-core.wasm', 'memplan-estimate.js'];

/** No test may hang the suite: each ends within a minute. */
const LIMIT = { timeout: 60000 };

let site, server, browser, context;

before(async () => {
  // One served folder: dist/, fixtures for hf-config-src, a test page and the MkDocs site.
  site = await mkdtemp(path.join(tmpdir(), 'memplan-element-'));
  await cp(DIST, site, { recursive: true });
  await writeFile(path.join(site, 'favicon.ico'), '');  // the Sphinx theme's page names no icon
  await mkdir(path.join(site, 'fixtures'));
  await writeFile(path.join(site, 'fixtures/config.json'), JSON.stringify(hfConfig));
  await writeFile(path.join(site, 'fixtures/page.json'), '<!doctype html><title>Not found</title><p>a login page');
  await writeFile(path.join(site, 'fixtures/page.html'), '<!doctype html><title>x</title>');
  await writeFile(path.join(site, 'fixtures/huge.json'), '{"x": "' + 'a'.repeat(2 << 20) + '"}');
  await writeFile(path.join(site, 'blank.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>blank</title>' +
    '<link rel="icon" href="data:,"><script type="module" src="memplan-estimate.js"></script></head><body><main></main></body></html>');
  // The MkDocs recipe of docs/embedding.md: the API files under docs/memplan/, raw HTML in the Markdown.
  const project = path.join(site, '.mkdocs-src');
  await mkdir(path.join(project, 'docs/memplan'), { recursive: true });
  for (const name of API_FILES) await cp(path.join(DIST, name), path.join(project, 'docs/memplan', name));
  await writeFile(path.join(project, 'mkdocs.yml'),
    'site_name: memplan embedding test\nuse_directory_urls: false\ntheme:\n  name: mkdocs\n  highlightjs: false\n');
  await writeFile(path.join(project, 'docs/index.md'), [
    '# GPU memory of two setups', '',
    '<script type="module" src="memplan/memplan-estimate.js"></script>', '',
    'Training Llama 2 7B on 8 GPUs with ZeRO stage 2:', '',
    '<memplan-estimate id="train" model="llama-2-7b" gpus="8" zero="2" gpu="h100-sxm-80gb"></memplan-estimate>', '',
    'Serving Llama 3.1 8B at a 32k context:', '',
    '<memplan-estimate id="serve" mode="infer" model="llama-3.1-8b" context="32k" gpu="h100-sxm-80gb" units="GB" editable></memplan-estimate>', '',
  ].join('\n'));
  execFileSync('mkdocs', ['build', '--quiet', '--strict', '--site-dir', path.join(site, 'mkdocs')], { cwd: project, stdio: 'pipe' });
  // The Sphinx recipe: the API files under _static/memplan/, the script through html_js_files, the
  // elements in `.. raw:: html` blocks.
  const sphinx = path.join(site, '.sphinx-src');
  await mkdir(path.join(sphinx, '_static/memplan'), { recursive: true });
  for (const name of API_FILES) await cp(path.join(DIST, name), path.join(sphinx, '_static/memplan', name));
  await writeFile(path.join(sphinx, 'conf.py'), "project = 'memplan embedding test'\nhtml_static_path = ['_static']\n" +
    "html_js_files = [('memplan/memplan-estimate.js', {'type': 'module'})]\n");
  await writeFile(path.join(sphinx, 'index.rst'), [
    'GPU memory of two setups', '========================', '',
    'Training Llama 2 7B on 8 GPUs with ZeRO stage 2:', '', '.. raw:: html', '',
    '   <memplan-estimate id="train" model="llama-2-7b" gpus="8" zero="2" gpu="h100-sxm-80gb"></memplan-estimate>', '',
    'Serving Llama 3.1 8B at a 32k context:', '', '.. raw:: html', '',
    '   <memplan-estimate id="serve" mode="infer" model="llama-3.1-8b" context="32k" gpu="h100-sxm-80gb" units="GB" editable></memplan-estimate>', '',
  ].join('\n'));
  execFileSync('sphinx-build', ['-q', '-W', '-b', 'html', sphinx, path.join(site, 'sphinx')], { stdio: 'pipe' });
  // The VitePress recipe: the API files under docs/public/memplan/, the script in the config's `head`,
  // the element declared a custom element to Vue's template compiler; built by the devDependency.
  const vitepress = path.join(site, '.vitepress-src');
  await mkdir(path.join(vitepress, 'docs/public/memplan'), { recursive: true });
  await mkdir(path.join(vitepress, 'docs/.vitepress'));
  // The repository's node_modules as the project's own (vitepress and vue, the devDependencies).
  await symlink(path.join(ROOT, 'node_modules'), path.join(vitepress, 'node_modules'), 'dir');
  for (const name of API_FILES) await cp(path.join(DIST, name), path.join(vitepress, 'docs/public/memplan', name));
  await writeFile(path.join(vitepress, 'docs/.vitepress/config.mjs'), [
    "const base = '/vitepress/';",
    'export default {',
    "  title: 'memplan embedding test', base, outDir: " + JSON.stringify(path.join(site, 'vitepress')) + ',',
    "  head: [['link', { rel: 'icon', href: 'data:,' }], ['script', { type: 'module', src: base + 'memplan/memplan-estimate.js' }]],",
    "  vue: { template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith('memplan-') } } },",
    '};', ''].join('\n'));
  await writeFile(path.join(vitepress, 'docs/index.md'), [
    '# GPU memory of two setups', '',
    'Training Llama 2 7B on 8 GPUs with ZeRO stage 2:', '',
    '<memplan-estimate id="train" model="llama-2-7b" gpus="8" zero="2" gpu="h100-sxm-80gb"></memplan-estimate>', '',
    'Serving Llama 3.1 8B at a 32k context:', '',
    '<memplan-estimate id="serve" mode="infer" model="llama-3.1-8b" context="32k" gpu="h100-sxm-80gb" units="GB" editable></memplan-estimate>', '',
  ].join('\n'));
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/vitepress/bin/vitepress.js'), 'build', 'docs'],
    { cwd: vitepress, stdio: 'pipe' });
  server = await serve(site);
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
});

after(async () => {
  await browser?.close();
  server?.stop();
  if (site) await rm(site, { recursive: true, force: true });
});

/** Opens a page and waits until every element on it has an answer or an error. */
async function open(pathname, { wait = true } = {}) {
  const watched = await watchedPage(context, server.origin);
  const wasm = [];
  watched.page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(r.url()); });
  await watched.page.goto(server.origin + pathname);
  if (wait) await settled(watched.page);
  return { ...watched, wasm };
}

function settled(page) {
  return page.waitForFunction(() => {
    const all = [...document.querySelectorAll('memplan-estimate')];
    return all.length > 0 && all.every((e) => ['ready', 'error'].includes(e.shadowRoot.querySelector('.card').dataset.state));
  });
}

/** What one element shows: {result, total, verdict, rows, errors, warnings, assumptions}. */
function shown(page, selector) {
  return page.evaluate((s) => {
    const e = document.querySelector(s);
    const r = e.shadowRoot;
    const text = (q) => r.querySelector(q).textContent;
    return { result: e.result, errors: e.errors, total: text('.total'), verdict: text('.verdict'),
      rows: [...r.querySelectorAll('tr[data-part]')].map((tr) => [tr.dataset.part, Number(tr.querySelector('[data-bytes]').dataset.bytes)]),
      errorLines: [...r.querySelectorAll('.errors li')].map((li) => li.textContent), warnings: text('.warnings'),
      assumptions: text('.assumptions'), state: r.querySelector('.card').dataset.state };
  }, selector);
}

/** The page's structured clone of a result equals the core's result object here. */
function sameAnswer(result, expected) {
  assert.deepEqual(JSON.parse(JSON.stringify(result)), JSON.parse(JSON.stringify(expected)));
}

const TRAIN = { model: { preset: 'llama-2-7b' }, parallel: { gpus: 8, zero_stage: 2 }, train: { seq_len: 4000 }, gpu: { memory_bytes: h100, name: 'h100-sxm-80gb' } };
const SERVE = { mode: 'infer', model: { preset: 'llama-3.1-8b' }, infer: { context_len: 32000, batch: 4, engine: 'vllm' }, gpu: { memory_bytes: h100, name: 'h100-sxm-80gb' } };

async function checkTwo(page, train, serve, trainUnit = 'GiB', serveUnit = 'GB') {
  for (const [selector, config, unit] of [['#train', train, trainUnit], ['#serve', serve, serveUnit]]) {
    const expected = mp.estimate(config);
    const got = await shown(page, selector);
    assert.equal(got.state, 'ready', selector + ' ' + got.errorLines.join('; '));
    sameAnswer(got.result, expected);
    assert.equal(got.total, formatBytes(expected.per_gpu.total, unit) + ' per GPU');
    assert.match(got.verdict, expected.gpu.fits ? /^Fits: / : /^Does not fit: /);
    // The table lists the non-zero parts with the core's bytes, then the total.
    const parts = Object.entries(expected.per_gpu).filter(([k, v]) => k !== 'total' && v > 0);
    assert.deepEqual(got.rows.slice(0, -1).map(([k]) => k).sort(), parts.map(([k]) => k).sort());
    for (const [k, v] of got.rows) assert.equal(v, expected.per_gpu[k], k);
  }
}

test('plain HTML: three elements show the core\'s answer, the WASM loads once, no error, no other origin', LIMIT, async () => {
  const { page, problems, wasm } = await open('/estimate-example.html');
  await checkTwo(page, TRAIN, SERVE);
  assert.equal(wasm.length, 1, 'one WASM download for three elements: ' + wasm.join(', '));
  assert.match(wasm[0], /\/memplan-estimate-core\.wasm$/, 'the element loads the estimate-only module');
  // recipe="qlora": the core's answer with the recipe applied (options.recipe, as --recipe).
  const rtx4090 = mp.gpus().find((g) => g.id === 'rtx-4090-24gb').capacity_bytes;
  const qloraConfig = { model: { preset: 'qwen3-32b' }, train: { seq_len: 2000 }, gpu: { memory_bytes: rtx4090, name: 'rtx-4090-24gb' } };
  const qlora = await shown(page, '#qlora');
  sameAnswer(qlora.result, mp.estimate(qloraConfig, { recipe: 'qlora' }));
  assert.ok(qlora.result.per_gpu.total < mp.estimate(qloraConfig).per_gpu.total);
  assert.match(qlora.assumptions, / · QLoRA [^·]+ · NVIDIA GeForce RTX 4090$/);
  const got = await shown(page, '#train');
  assert.match(got.assumptions, /^Training · Llama 2 7B, .* · GPUs 8 · .*ZeRO stage 2 · Sequence length 4,000 .*NVIDIA H100 SXM 80GB$/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('numbers read as each field reads them: seq="32K" is 32,768 tokens and seq="32k" 32,000, as vLLM reads them', LIMIT, async () => {
  const { page, problems } = await open('/blank.html', { wait: false });
  for (const [text, tokens] of [['32K', 32768], ['32k', 32000], ['32,768', 32768]]) {
    const result = await page.evaluate(async (text) => {
      const e = document.createElement('memplan-estimate');
      e.setAttribute('model', 'llama-2-7b');
      e.setAttribute('seq', text);
      document.querySelector('main').replaceChildren(e);
      await customElements.whenDefined('memplan-estimate');
      await e.updateComplete;
      return e.result;
    }, text);
    sameAnswer(result, mp.estimate({ model: { preset: 'llama-2-7b' }, train: { seq_len: tokens } }));
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('an attribute change re-renders and fires memplan-change with the result', LIMIT, async () => {
  const { page, problems } = await open('/estimate-example.html');
  const detail = await page.evaluate(() => new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error('no memplan-change within 10 s')), 10000);
    const e = document.getElementById('train');
    e.addEventListener('memplan-change', (event) => resolve(event.detail), { once: true });
    e.setAttribute('gpus', '16');
    e.setAttribute('zero', '3');  // two changes in one task: one estimate, one event
  }));
  const expected = mp.estimate({ ...TRAIN, parallel: { gpus: 16, zero_stage: 3 } });
  sameAnswer(detail, expected);
  const got = await shown(page, '#train');
  sameAnswer(got.result, expected);
  assert.equal(got.total, formatBytes(expected.per_gpu.total, 'GiB') + ' per GPU');
  // Units: the same bytes, shown in GB.
  await page.evaluate(() => document.getElementById('train').setAttribute('units', 'GB'));
  await page.waitForFunction((t) => document.getElementById('train').shadowRoot.querySelector('.total').textContent === t,
    formatBytes(expected.per_gpu.total, 'GB') + ' per GPU');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a model known by its stored bytes: the core marks the verdict approximate and the element says so', LIMIT, async () => {
  const { page, problems } = await open('/estimate-example.html');
  // Qwen3-0.6B's sizes with its checkpoint's stored bytes (what the day-one path gives, tests/wasm/hub.test.mjs).
  const config = { mode: 'infer', model: { params: 596049920, stored_weight_bytes: 1192099840, num_hidden_layers: 28, hidden_size: 1024,
    num_attention_heads: 16, num_key_value_heads: 8, head_dim: 128, intermediate_size: 3072, vocab_size: 151936, tie_word_embeddings: true } };
  assert.equal(mp.estimate({ ...config, gpu: { memory_bytes: h100, name: 'h100-sxm-80gb' } }).gpu.approximate, true);
  const verdict = (id) => page.evaluate((i) => {
    const v = document.getElementById(i).shadowRoot.querySelector('.verdict');
    return { text: v.textContent, approximate: v.dataset.approximate ?? null, fits: v.dataset.fits ?? null };
  }, id);
  await page.evaluate((c) => {
    const e = document.createElement('memplan-estimate');
    e.id = 'stored';
    e.setAttribute('config', JSON.stringify(c));
    e.setAttribute('gpu', 'h100-sxm-80gb');
    document.body.append(e);
  }, config);
  await page.waitForFunction(() => document.getElementById('stored').shadowRoot?.querySelector('.verdict')?.dataset.fits === 'true');
  const marked = await verdict('stored');
  assert.equal(marked.approximate, 'true');
  assert.match(marked.text, /^Fits: .* Approximate: model known only by its stored bytes and declared sizes; see warnings\.$/);
  // A preset's answer is not approximate.
  const plain = await verdict('train');
  assert.equal(plain.approximate, null);
  assert.doesNotMatch(plain.text, /Approximate/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('invalid attributes show inline errors naming the attribute and the allowed range; nothing is read as HTML', LIMIT, async () => {
  const { page, problems } = await open('/blank.html', { wait: false });
  const cases = [
    [{ gpus: '0' }, /^gpus: parallel\.gpus: must be a whole number of GPUs from 1 to 1,048,576 \(k = 1,000, M = 1,000,000\)$/],
    [{ gpus: 'many' }, /^gpus: parallel\.gpus: must be a whole number of GPUs from 1 to 1,048,576 \(k = 1,000, M = 1,000,000\)$/],
    [{ model: 'llama-2-7b', tp: '3' }, /^gpus: parallel\.gpus: must be a multiple of parallel\.tp × parallel\.pp \(3\)$/],
    [{ model: 'llama-2-7b', gpus: '3', tp: '3' }, /^tp: parallel\.tp: must divide/],
    [{ zero: '4' }, /^zero: parallel\.zero_stage: must be a whole number from 0 to 3$/],
    [{ seq: '20M' }, /^seq: train\.seq_len: must be a whole number of tokens from 1 to 16,777,216, such as 32768, .* as vLLM's command line reads them$/],
    // The field's own reading: "32K" tokens are 32,768 as vLLM reads them.
    [{ seq: '32K', gpus: '0' }, /^gpus: parallel\.gpus: /],
    [{ mode: 'serve' }, /^mode: mode: must be one of: train, infer$/],
    [{ engine: 'ollama', mode: 'infer' }, /^engine: infer\.engine: must be one of: none, vllm, sglang, trtllm$/],
    [{ gpu: 'h100' }, /^gpu: must be a GPU id of the catalogue .*such as h100-sxm-80gb$/],
    [{ units: 'MB' }, /^units: must be GB or GiB$/],
    [{ config: '{"parallel": ' }, /^config: must be a JSON object/],
    [{ config: '{"train": {"recompute": "most"}}' }, /^config: train\.recompute: must be one of: none, selective, full, selective_op$/],
    [{ model: 'nope' }, /^model: model\.preset: must be the id of a model preset/],
    [{ model: 'llama-2-7b', recipe: 'qlora2' }, /^recipe: recipe: must be one of: full, lora, qlora, dora/],
    [{ model: 'llama-2-7b', mode: 'infer', recipe: 'qlora' }, /^recipe: recipe: qlora sets train\.\w+, which mode infer does not read/],
    [{ model: '<img src=x onerror="window.pwned=1">' }, /^model: model\.preset: /],
  ];
  for (const [attributes, message] of cases) {
    const got = await page.evaluate(async (attributes) => {
      const e = document.createElement('memplan-estimate');
      for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
      document.querySelector('main').replaceChildren(e);
      await customElements.whenDefined('memplan-estimate');
      await e.updateComplete;
      return { errors: e.errors, result: e.result, lines: [...e.shadowRoot.querySelectorAll('.errors li')].map((li) => li.textContent),
        alert: e.shadowRoot.querySelector('.errors').getAttribute('role'), images: e.shadowRoot.querySelectorAll('img').length };
    }, attributes);
    assert.equal(got.result, null, JSON.stringify(attributes));
    assert.equal(got.lines.length, 1, JSON.stringify(got.lines));
    assert.match(got.lines[0], message);
    assert.equal(got.alert, 'alert');
    assert.equal(got.images, 0);
  }
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  // Unknown attributes are listed in the warning line; the estimate still runs.
  const warned = await page.evaluate(async () => {
    const e = document.createElement('memplan-estimate');
    e.setAttribute('model', 'llama-2-7b');
    e.setAttribute('colour', 'red');
    e.setAttribute('gpu-count', '8');
    e.setAttribute('data-note', 'fine');
    document.querySelector('main').replaceChildren(e);
    await customElements.whenDefined('memplan-estimate');
    await e.updateComplete;
    return { warnings: e.shadowRoot.querySelector('.warnings').textContent, ok: e.result !== null };
  });
  assert.equal(warned.ok, true);
  assert.equal(warned.warnings, 'Unknown attributes (ignored): colour, gpu-count');
  assert.deepEqual(problems, []);
  await page.close();
});

test('editable: a form of the given fields, edited by keyboard, errors beside the field', LIMIT, async () => {
  const { page, problems } = await open('/estimate-example.html');
  const input = page.locator('#serve input[name="context"]');
  assert.equal(await page.locator('#serve label', { hasText: 'Context length' }).count(), 1);
  await input.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('64k');
  // The listener is in place before the key is pressed (an evaluate and a key press may arrive in either order).
  await page.evaluate(() => {
    window.changed = new Promise((resolve, reject) => {
      document.getElementById('serve').addEventListener('memplan-change', (e) => resolve(e.detail), { once: true });
      setTimeout(() => reject(new Error('no memplan-change within 10 s')), 10000);
    });
  });
  await page.keyboard.press('Tab');  // leaving the field commits it (a change event)
  const expected = mp.estimate({ ...SERVE, infer: { ...SERVE.infer, context_len: 64000 } });
  sameAnswer(await page.evaluate(() => window.changed), expected);
  assert.equal(await page.getAttribute('#serve', 'context'), '64k');
  await page.locator('#serve select[name="units"]').selectOption('GiB');
  await page.waitForFunction((t) => document.getElementById('serve').shadowRoot.querySelector('.total').textContent === t,
    formatBytes(expected.per_gpu.total, 'GiB') + ' per GPU');
  await input.fill('lots');
  await input.press('Enter');
  await page.waitForFunction(() => document.getElementById('serve').result === null);
  const error = await page.evaluate(() => {
    const r = document.getElementById('serve').shadowRoot;
    const field = r.querySelector('input[name="context"]');
    const message = r.getElementById(field.getAttribute('aria-describedby'));
    return { invalid: field.getAttribute('aria-invalid'), message: message.hidden ? '' : message.textContent };
  });
  assert.equal(error.invalid, 'true');
  assert.match(error.message, /^infer\.context_len: must be a whole number/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('hf-config-src: a config.json is read; a missing, HTML or huge one gets a short message', LIMIT, async () => {
  const { page, problems } = await open('/blank.html', { wait: false });
  const run = (attributes) => page.evaluate(async (attributes) => {
    const e = document.createElement('memplan-estimate');
    for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
    document.querySelector('main').replaceChildren(e);
    await customElements.whenDefined('memplan-estimate');
    await e.updateComplete;
    return { result: e.result, lines: [...e.shadowRoot.querySelectorAll('.errors li')].map((li) => li.textContent) };
  }, attributes);
  const ok = await run({ 'hf-config-src': 'fixtures/config.json', mode: 'infer', context: '4096', gpu: 'h100-sxm-80gb' });
  sameAnswer(ok.result, mp.estimate({ mode: 'infer', infer: { context_len: 4096 }, gpu: { memory_bytes: h100, name: 'h100-sxm-80gb' } }, { hfConfig }));
  for (const [src, message] of [['fixtures/missing.json', /^hf-config-src: could not be fetched: HTTP 404$/],
    ['fixtures/page.html', /^hf-config-src: returned an HTML page/], ['fixtures/page.json', /^hf-config-src: returned HTML/],
    ['fixtures/huge.json', /^hf-config-src: is too large/]]) {
    const got = await run({ 'hf-config-src': src, mode: 'infer' });
    assert.equal(got.result, null);
    assert.equal(got.lines.length, 1);
    assert.match(got.lines[0], message);
    assert.ok(got.lines[0].length < 120, got.lines[0]);
  }
  // The 404 is the test's own; nothing else may appear.
  assert.deepEqual(problems.filter((p) => !/missing\.json|404/.test(p)), []);
  await page.close();
});

test('model="org/name": config.json from the Hub (replayed), read by the core; loading, a 404, an invalid id and a refused file named', LIMIT, async () => {
  // The Hub is replayed (tests/data/hub/SOURCE.md): Qwen/Qwen3-0.6B's config.json, a 404 EntryNotFound for
  // any other file, an HTML page for memplan-test/html, and no answer (until the test gives one) for memplan-test/slow.
  const data = path.join(ROOT, 'tests/data/');
  const qwen = await readFile(path.join(data, 'hf_cache/models--Qwen--Qwen3-0.6B/snapshots/c1899de289a04d12100db370d81485cdf75e47ca/config.json'), 'utf8');
  const notFound = await readFile(path.join(data, 'hub/entry-not-found-404.json'), 'utf8');
  const html = await readFile(path.join(data, 'hub/not-json.html'), 'utf8');
  const hubContext = await browser.newContext();
  const asked = [];
  const slow = [];
  const reply = (route, status, body, type = 'application/json') => route.fulfill({ status, body,
    headers: { 'access-control-allow-origin': '*', 'content-type': type, ...(status === 404 ? { 'x-error-code': 'EntryNotFound' } : {}) } });
  await hubContext.route((url) => url.origin !== server.origin, (route) => {
    const url = route.request().url();
    asked.push(url);
    if (url === 'https://huggingface.co/Qwen/Qwen3-0.6B/resolve/main/config.json') return reply(route, 200, qwen);
    if (url === 'https://huggingface.co/memplan-test/slow/resolve/main/config.json') return void slow.push(route);
    if (url === 'https://huggingface.co/memplan-test/html/resolve/main/config.json') return reply(route, 200, html, 'text/html');
    if (url.startsWith('https://huggingface.co/')) return reply(route, 404, notFound);
    return route.abort();
  });
  const { page, problems } = await watchedPage(hubContext, server.origin);
  await page.goto(server.origin + '/blank.html');
  const state = () => page.evaluate(() => {
    const e = document.querySelector('memplan-estimate');
    const r = e.shadowRoot;
    return { result: e.result, state: r.querySelector('.card').dataset.state, verdict: r.querySelector('.verdict').textContent,
      total: r.querySelector('.total').hidden ? null : r.querySelector('.total').textContent,
      lines: [...r.querySelectorAll('.errors li')].map((li) => li.textContent), assumptions: r.querySelector('.assumptions').textContent };
  });
  const run = async (attributes) => {
    await page.evaluate(async (attributes) => {
      const e = document.createElement('memplan-estimate');
      for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
      document.querySelector('main').replaceChildren(e);
      await customElements.whenDefined('memplan-estimate');
      await e.updateComplete;
    }, attributes);
    return state();
  };
  // A preset id is a preset: the Hub is not asked, and its reader is not loaded.
  const preset = await run({ model: 'llama-2-7b' });
  assert.equal(preset.state, 'ready');
  assert.deepEqual(asked, []);
  // The config.json of a Hub model, given to the core as a pasted one: the core's answer for it, the model named.
  const ok = await run({ model: 'Qwen/Qwen3-0.6B', mode: 'infer', context: '4096', gpu: 'h100-sxm-80gb' });
  assert.equal(ok.state, 'ready', ok.lines.join('; '));
  sameAnswer(ok.result, mp.estimate({ mode: 'infer', infer: { context_len: 4096 }, gpu: { memory_bytes: h100, name: 'h100-sxm-80gb' } }, { hfConfig: qwen }));
  assert.equal(ok.result.params, 596049920);
  assert.equal(ok.total, formatBytes(ok.result.per_gpu.total, 'GiB') + ' per GPU');
  assert.match(ok.assumptions, /^Inference · Qwen\/Qwen3-0\.6B \(qwen3\), 596M \(596,049,920\) parameters · /);
  assert.deepEqual(asked, ['https://huggingface.co/Qwen/Qwen3-0.6B/resolve/main/config.json']);
  // While config.json is on its way: a loading state, no figure.
  await page.evaluate(() => {
    const e = document.createElement('memplan-estimate');
    e.setAttribute('model', 'memplan-test/slow');
    document.querySelector('main').replaceChildren(e);
  });
  await page.waitForFunction(() => document.querySelector('memplan-estimate').shadowRoot.querySelector('.card').dataset.state === 'loading');
  const loading = await state();
  assert.equal(loading.verdict, 'Loading memplan-test/slow from the Hugging Face Hub…');
  assert.equal(loading.total, null);
  assert.equal(loading.result, null);
  while (!slow.length) await new Promise((resolve) => setTimeout(resolve, 50));
  await reply(slow[0], 200, qwen);
  await page.evaluate(() => document.querySelector('memplan-estimate').updateComplete);
  const loaded = await state();
  assert.equal(loaded.state, 'ready');
  assert.equal(loaded.result.params, 596049920);
  // Failures: one line naming the model (the fetch's or the core's message), no figure.
  for (const [model, message] of [
    ['Qwen/Qwen3-0.6B@v9.9', 'model: Qwen/Qwen3-0.6B at v9.9: config.json: is not in this repository at revision v9.9 (HTTP 404)'],
    ['memplan-test/html', 'model: memplan-test/html at main: hf_config: is not valid JSON'],
    ['org/na..me', 'model: hub.model: names "org/na..me", which is not a Hub model id (letters, digits, \'-\', \'_\' and \'.\', one \'/\' between ' +
      'organisation and name, no "--" or ".."): write org/name, org/name@revision or the model\'s https://huggingface.co/org/name link'],
    ['https://huggingface.co/datasets/org/data', 'model: hub.model: is a link to a dataset, not to a model: write org/name, org/name@revision ' +
      'or the model\'s https://huggingface.co/org/name link'],
  ]) {
    const got = await run({ model });
    assert.equal(got.state, 'error', model);
    assert.equal(got.result, null);
    assert.deepEqual(got.lines, [message]);
    assert.equal(got.verdict, 'Cannot estimate: one setting is invalid.');
    assert.equal(got.total, null);
  }
  assert.ok(!asked.some((url) => url.includes('na..me') || url.includes('datasets')), 'nothing fetched for what is not a model id');
  // A Hub model and hf-config-src both give the model: refused before anything is fetched.
  const count = asked.length;
  const both = await run({ model: 'Qwen/Qwen3-0.6B@v2', 'hf-config-src': 'fixtures/config.json' });
  assert.deepEqual(both.lines, ['model: names a Hub model and hf-config-src a config.json: give one of them']);
  assert.equal(asked.length, count);
  // The Hub's requests and the 404 are the test's own; nothing else may appear.
  assert.deepEqual(problems.filter((p) => !p.includes('https://huggingface.co/') && !/status of 404/.test(p)), []);
  await hubContext.close();
});

test('theming and media: dark colour scheme, print hides the form, ::part styles the card', LIMIT, async () => {
  const loose = await browser.newContext({ bypassCSP: true });  // for the test's own inline style
  const page = await loose.newPage();
  await page.goto(server.origin + '/estimate-example.html');
  await settled(page);
  const background = () => page.evaluate(() => getComputedStyle(document.getElementById('serve').shadowRoot.querySelector('.card')).backgroundColor);
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await background();
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.notEqual(await background(), light);
  await page.emulateMedia({ media: 'print', colorScheme: 'light' });
  assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById('serve').shadowRoot.querySelector('form')).display), 'none');
  await page.emulateMedia({ media: 'screen' });
  await page.addStyleTag({ content: 'memplan-estimate::part(card) { border-width: 3px } memplan-estimate { --memplan-fit: rgb(1, 2, 3) }' });
  const styled = await page.evaluate(() => {
    const r = document.getElementById('train').shadowRoot;
    return [getComputedStyle(r.querySelector('.card')).borderTopWidth, getComputedStyle(r.querySelector('.verdict')).color];
  });
  assert.deepEqual(styled, ['3px', 'rgb(1, 2, 3)']);
  await loose.close();
});

test('axe-core finds no accessibility violation on the page with both elements', LIMIT, async () => {
  const axeContext = await browser.newContext({ bypassCSP: true });  // axe is injected as an inline script
  const page = await axeContext.newPage();
  await page.goto(server.origin + '/estimate-example.html');
  await settled(page);
  await page.addScriptTag({ path: path.join(ROOT, 'node_modules/axe-core/axe.min.js') });
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const violations = await page.evaluate(async () =>
      (await window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'best-practice'] })).violations
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
    assert.deepEqual(violations, [], scheme);
  }
  await axeContext.close();
});

test('MkDocs: a Markdown page with two elements, built by mkdocs, shows the core\'s answers', LIMIT, async () => {
  const { page, problems, wasm } = await open('/mkdocs/index.html');
  await checkTwo(page, { ...TRAIN, train: undefined }, { mode: 'infer', model: { preset: 'llama-3.1-8b' }, infer: { context_len: 32000 }, gpu: { memory_bytes: h100, name: 'h100-sxm-80gb' } });
  assert.equal(wasm.length, 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test('VitePress: a Markdown page with two elements, built by vitepress and hydrated by Vue, shows the core\'s answers', LIMIT, async () => {
  const { page, problems, wasm } = await open('/vitepress/index.html');
  await checkTwo(page, { ...TRAIN, train: undefined }, { mode: 'infer', model: { preset: 'llama-3.1-8b' }, infer: { context_len: 32000 }, gpu: { memory_bytes: h100, name: 'h100-sxm-80gb' } });
  assert.equal(wasm.length, 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test('axe-core finds no accessibility violation in the elements of the MkDocs page, light and dark', LIMIT, async () => {
  const axeContext = await browser.newContext({ bypassCSP: true });
  const page = await axeContext.newPage();
  await page.goto(server.origin + '/mkdocs/index.html');
  await settled(page);
  await page.addScriptTag({ path: path.join(ROOT, 'node_modules/axe-core/axe.min.js') });
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const violations = await page.evaluate(async () =>
      (await window.axe.run({ include: [['memplan-estimate']] }, { runOnly: ['wcag2a', 'wcag2aa', 'best-practice'] })).violations
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
    assert.deepEqual(violations, [], scheme);
  }
  await axeContext.close();
});

test('Sphinx: a reStructuredText page with two elements, built by sphinx-build, shows the core\'s answers', LIMIT, async () => {
  const { page, problems, wasm } = await open('/sphinx/index.html');
  await checkTwo(page, { ...TRAIN, train: undefined }, { mode: 'infer', model: { preset: 'llama-3.1-8b' }, infer: { context_len: 32000 }, gpu: { memory_bytes: h100, name: 'h100-sxm-80gb' } });
  assert.equal(wasm.length, 1);
  assert.deepEqual(problems, []);
  await page.close();
});

// The screenshots of docs/embedding.md, written when MEMPLAN_SCREENSHOTS=1 (the sites are built above):
//   MEMPLAN_SCREENSHOTS=1 node --test tests/e2e/element.test.mjs
test('screenshots for docs/embedding.md (MEMPLAN_SCREENSHOTS=1)', { ...LIMIT, skip: process.env.MEMPLAN_SCREENSHOTS !== '1' }, async () => {
  const out = path.join(ROOT, 'docs/screenshots');
  const shots = [['/estimate-example.html', 'element-example'], ['/mkdocs/index.html', 'element-mkdocs'],
    ['/sphinx/index.html', 'element-sphinx'], ['/vitepress/index.html', 'element-vitepress']];
  const shotContext = await browser.newContext({ viewport: { width: 900, height: 1000 }, colorScheme: 'light' });
  for (const [pathname, name] of shots) {
    const page = await shotContext.newPage();
    await page.goto(server.origin + pathname);
    await settled(page);
    await page.screenshot({ path: path.join(out, name + '.png'), fullPage: true });
    await page.close();
  }
  await shotContext.close();
});
