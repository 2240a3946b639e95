// "A model on the Hub" in Debian's Chromium (web/hub.js): the page fetches config.json, the Hub API
// entry, the index and each shard's safetensors header by range requests, and shows the core's figures.
// The Hub is replayed, not reached: every request to another origin is intercepted (Playwright's
// context.route) and answered from tests/data/hub/ and tests/data/hf_cache/ (tests/data/hub/SOURCE.md).
// Interception rather than a second local server: the page keeps its real addresses
// (https://huggingface.co/…), so its Content-Security-Policy is exercised as shipped (a redirect to a
// host it does not list is refused), and a request to any origin the replay does not know is still
// caught as a problem.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { servedChromium } from './harness.mjs';

const env = servedChromium();
const data = new URL('../data/', import.meta.url);
const HUB = 'https://huggingface.co';
const ID = 'Qwen/Qwen3-0.6B';
const snapshot = new URL('hf_cache/models--Qwen--Qwen3-0.6B/snapshots/c1899de289a04d12100db370d81485cdf75e47ca/', data);
const sharded = new URL('hf_cache/qwen3-0.6b-sharded/', data);
const text = (url) => readFile(url, 'utf8');
const qwen = {
  config: await text(new URL('config.json', snapshot)),
  api: await text(new URL('hub/qwen3-0.6b.api.json', data)),
  file: await readFile(new URL('model.safetensors', snapshot)),
};
// The size the replayed file states: 8 + the fixture's header + its tensors' data (the fixture's header
// is written more compactly than the released file's, tests/data/hf_cache/SOURCE.md).
qwen.size = fileSize(qwen.file);
const shards = {
  config: await text(new URL('config.json', sharded)),
  index: await text(new URL('model.safetensors.index.json', sharded)),
  files: Object.fromEntries(await Promise.all(['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']
    .map(async (name) => [name, await readFile(new URL(name, sharded))]))),
};
const notFound = await text(new URL('hub/entry-not-found-404.json', data));
const gated = await text(new URL('hub/gated-401.json', data));
const html = await text(new URL('hub/not-json.html', data));
const elsewhere = await text(new URL('hub/index-elsewhere.json', data));
// The Hub's CORS headers on its replies (Range and Content-Range readable by any page).
const CORS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Content-Range, Content-Length, X-Error-Code' };
const STORED_BF16 = '1503264768';  // 751,632,384 BF16 values: the Hub API's safetensors.parameters
const MEMPLAN_PARAMS = '596049920';

/** The size a shard states in Content-Range: 8 + its header + the end of its last tensor's data. */
function fileSize(bytes) {
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  let end = 0;
  for (const [name, t] of Object.entries(header)) if (name !== '__metadata__') end = Math.max(end, t.data_offsets[1]);
  return 8 + n + end;
}

/** A 206 reply of the range asked ("bytes=A-B") of `bytes`, a file of `total` bytes (only its header is stored). */
function ranged(bytes, range, total, cut = false) {
  const [, a, b] = range.match(/^bytes=(\d+)-(\d+)$/);
  let body = bytes.subarray(Number(a), Number(b) + 1);
  if (cut) body = body.subarray(0, Math.floor(body.length / 2));
  return { status: 206, headers: { 'content-range': `bytes ${a}-${b}/${total}`, 'content-type': 'application/octet-stream' }, body };
}

/**
 * Opens the page with the Hub replayed: `reply(url, headers)` answers a request to another origin
 * ({status, headers, body} | 'hang' (no answer) | 'fail' (a network failure) | null for "not expected").
 * `expected` lists the console messages the test expects (a failed request logs one). Returns
 * {page, context, log: [{url, headers}], problems}.
 */
async function open(reply, { hash = '', expected = [] } = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1366, height: 900 } });
  const problems = [];
  env.problems.push(problems);
  const log = [];
  const hanging = [];
  const origin = env.server.origin;
  await context.route((url) => url.origin !== origin, async (route) => {
    const request = route.request();
    const headers = await request.allHeaders();
    log.push({ url: request.url(), method: request.method(), headers });
    if (request.method() === 'OPTIONS')  // a preflight (the Authorization header): allowed as the Hub allows it
      return route.fulfill({ status: 204, headers: { ...CORS, 'access-control-allow-headers': 'authorization, range', 'access-control-allow-methods': 'GET, HEAD' } });
    const answer = reply(request.url(), headers);
    if (answer === 'hang') return void hanging.push(route);
    if (answer === 'fail') return route.abort('failed');
    if (!answer) {
      problems.push('request to another origin: ' + request.url());
      return route.abort();
    }
    return route.fulfill({ status: answer.status ?? 200, headers: { ...CORS, ...(answer.headers || {}) }, body: answer.body });
  });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() !== 'error' && m.type() !== 'warning') return;
    if (!expected.some((e) => e.test(m.text()))) problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  await page.goto(origin + '/index.html' + hash);
  await page.waitForSelector('#output[data-computed]');
  const close = async () => {
    for (const route of hanging) await route.abort().catch(() => {});
    await context.close();
  };
  return { page, context, log, problems, close };
}

/**
 * The replies of Qwen/Qwen3-0.6B at `revision`. The Hub answers a resolve of a large file with a
 * redirect to its CDN; Playwright does not intercept the request a fulfilled redirect leads to (measured
 * here with playwright-core 1.65.1 and Chromium 156: it goes to the network), so model.safetensors is
 * answered at its resolve address, by `shard(url, headers)`, with the CDN's reply.
 */
function qwenHub({ revision = 'main', shard = (url, headers) => ranged(qwen.file, headers.range, qwen.size), config = qwen.config, token = '' } = {}) {
  return (url, headers) => {
    if (token && headers.authorization !== 'Bearer ' + token) return { status: 401, headers: { 'x-error-code': 'GatedRepo', 'content-type': 'application/json' }, body: gated };
    const files = `${HUB}/${ID}/resolve/${revision}/`;
    if (url === files + 'config.json') return { body: config, headers: { 'content-type': 'application/json' } };
    if (url === `${HUB}/api/models/${ID}/revision/${revision}`) return { body: qwen.api, headers: { 'content-type': 'application/json' } };
    if (url === files + 'model.safetensors.index.json') return { status: 404, headers: { 'x-error-code': 'EntryNotFound' }, body: notFound };
    if (url === files + 'model.safetensors') return shard(url, headers);
    return null;
  };
}

/** Types a model into the Hub box and loads it; waits for the load's end (#hub-box data-runs). */
async function loadHub(page, typed, runs = 1) {
  await page.locator('#hub-box > summary').click();
  await page.fill('#hub-model', typed);
  await page.click('#hub-load');
  await page.waitForSelector(`#hub-box[data-runs="${runs}"]`, { timeout: 30000 });
}

const attr = (page, selector, name) => page.getAttribute(selector, name);
const errorsOf = (page) => page.locator('#hub-errors .line').allTextContents();

/** The page still answers: a changed batch recomputes without an error. */
async function stillWorks(page) {
  const before = Number(await attr(page, '#output', 'data-estimated'));
  await page.fill('[name="infer.batch"]', '3');
  await page.waitForFunction((n) => Number(document.querySelector('#output').dataset.estimated) > n, before);
  assert.equal(await page.isVisible('#errors'), false);
}

const FAILED_LOAD = /^Failed to load resource: the server responded with a status of (401|404)/;

test('Qwen/Qwen3-0.6B: config, API and the header by range requests; stored bytes beside memplan\'s count, then the estimate', async () => {
  const { page, log, close } = await open(qwenHub(), { expected: [FAILED_LOAD] });
  await loadHub(page, 'https://huggingface.co/Qwen/Qwen3-0.6B');
  assert.equal(await attr(page, '#hub-box', 'data-source'), 'headers');
  assert.equal(await attr(page, '#hub-dtypes tr[data-dtype="BF16"] td[data-bytes]', 'data-bytes'), STORED_BF16);
  assert.match(await page.textContent('#hub-dtypes tr[data-dtype="BF16"]'), /BF16751,632,3841,503,264,768 bytes \(1\.400 GiB\)/);
  assert.equal(await attr(page, '#hub-count', 'data-params'), MEMPLAN_PARAMS);
  assert.match(await page.textContent('#hub-count'), /^memplan counts 596,049,920 parameters for Qwen\/Qwen3-0\.6B \(qwen3\); the checkpoint stores 751,632,384 values in 311 tensors of 1 file\.$/);
  assert.match(await page.textContent('#hub-parts tr[data-part="output"]'), /tie_word_embeddings is true/);
  assert.equal(await attr(page, '#hub-unexplained', 'data-unexplained'), '0');
  // Two range requests of the header only: its 8-byte length, then its 35,339 bytes.
  assert.deepEqual(log.filter((r) => r.url.endsWith('/model.safetensors')).map((r) => r.headers.range), ['bytes=0-7', 'bytes=8-35346']);
  assert.ok(log.every((r) => !('authorization' in r.headers)), 'no token given, none sent');
  // The config is loaded into the estimate as a pasted one: the model fields, no preset, and the link carries the id only.
  await page.waitForFunction(() => document.querySelector('[name="model.hidden_size"]').value === '1024');
  await page.waitForSelector('#output[data-computed]');
  assert.equal(await page.inputValue('#model-preset'), '');
  assert.equal(await page.inputValue('[name="model.num_hidden_layers"]'), '28');
  const link = await page.evaluate(() => location.href);
  assert.equal(new URLSearchParams(new URL(link).hash.slice(1)).get('hub'), ID);
  assert.ok(!link.includes('safetensors') && !link.includes('config.json'));
  await close();
  // Reopening the link fetches the model again and shows the same figures.
  const again = await open(qwenHub(), { hash: new URL(link).hash, expected: [FAILED_LOAD] });
  await again.page.waitForSelector('#hub-box[data-runs="1"]', { timeout: 30000 });
  assert.equal(await again.page.inputValue('#hub-model'), ID);
  assert.equal(await attr(again.page, '#hub-dtypes tr[data-dtype="BF16"] td[data-bytes]', 'data-bytes'), STORED_BF16);
  assert.equal(again.log.filter((r) => r.url.endsWith('/config.json')).length, 1);
  await again.page.waitForFunction(() => document.querySelector('[name="model.hidden_size"]').value === '1024');
  await stillWorks(again.page);
  // Picking a preset drops the Hub model from the link.
  await again.page.locator('#model-preset').selectOption('llama-3.1-8b');
  await again.page.waitForSelector('#output[data-computed]');
  assert.equal(new URLSearchParams(await again.page.evaluate(() => location.hash.slice(1))).get('hub'), null);
  await again.close();
});

/**
 * Qwen/Qwen3-0.6B's real config.json as a family memplan does not count: model_type "qwen9", its
 * architectures renamed and a key no reader reads ("fancy_gate"), as tests/core/io/test_day_one.cpp builds
 * it; `edit(config)` changes it further.
 */
function qwen9(edit = () => {}) {
  const config = JSON.parse(qwen.config);
  config.model_type = 'qwen9';
  config.architectures = ['Qwen9ForCausalLM'];
  config.fancy_gate = true;
  edit(config);
  return JSON.stringify(config, null, 2) + '\n';
}

test('a config.json no family counts: the day-one path estimates it from the header fetched, every assumption listed, the verdict approximate', async () => {
  const { page, close } = await open(qwenHub({ config: qwen9() }), { expected: [FAILED_LOAD] });
  assert.equal(await page.inputValue('[name="mode"]'), 'infer');
  await loadHub(page, ID);
  assert.equal(await attr(page, '#hub-box', 'data-state'), 'done');
  assert.equal(await attr(page, '#hub-box', 'data-source'), 'day-one');
  assert.equal(await page.isVisible('#hub-errors'), false);
  const assumptions = await page.locator('#hub-assumptions .line').allTextContents();
  assert.ok(assumptions.length > 1, assumptions.join('\n'));
  assert.ok(assumptions[0].startsWith('day-one estimate: model_type qwen9 is not counted by memplan\'s families'), assumptions[0]);
  assert.match(await page.textContent('#hub-status'), /^Loaded Qwen\/Qwen3-0\.6B at main by the day-one path: .*1,192,099,840 bytes/);
  // The day-one model in the form (its stored bytes a model field the configuration sends), no preset.
  await page.waitForFunction(() => document.querySelector('[name="model.stored_weight_bytes"]').value === '1192099840' &&
    document.querySelector('#model-preset').value === '' && document.querySelector('#verdict').dataset.approximate === 'true');
  await page.waitForSelector('#output[data-computed]');
  assert.equal(await page.inputValue('[name="model.num_hidden_layers"]'), '28');
  assert.equal(await page.inputValue('[name="model.hidden_size"]'), '1024');
  // Inference serves the stored bytes: the weights are the header's (the tied lm_head left out), exactly.
  assert.equal(await page.locator('#breakdown tr[data-row="weights"] td.num').first().getAttribute('title'), '1,192,099,840 bytes');
  assert.match(await page.textContent('#verdict'), /^(Fits|Does not fit): .* Approximate — model known only by its stored bytes and declared sizes; see warnings\.$/);
  assert.equal(await page.isVisible('#errors'), false);
  const link = await page.evaluate(() => location.hash);
  assert.equal(new URLSearchParams(link.slice(1)).get('hub'), ID);
  // Reopening the link fetches the model again: the same day-one model, the same weights.
  const again = await open(qwenHub({ config: qwen9() }), { hash: link, expected: [FAILED_LOAD] });
  await again.page.waitForSelector('#hub-box[data-runs="1"]', { timeout: 30000 });
  assert.equal(await attr(again.page, '#hub-box', 'data-source'), 'day-one');
  await again.page.waitForFunction(() => document.querySelector('#verdict').dataset.approximate === 'true');
  await again.page.waitForSelector('#output[data-computed]');
  assert.equal(await again.page.locator('#breakdown tr[data-row="weights"] td.num').first().getAttribute('title'), '1,192,099,840 bytes');
  assert.equal(await again.page.isVisible('#errors'), false);
  await again.close();
  // Picking a preset: the verdict is no longer approximate.
  await page.locator('#model-preset').selectOption('llama-3.1-8b');
  await page.waitForFunction(() => !('approximate' in document.querySelector('#verdict').dataset));
  assert.doesNotMatch(await page.textContent('#verdict'), /Approximate/);
  await close();
});

test('a config.json no family counts and without num_hidden_layers: the families\' refusal, then the day-one path\'s naming the key; nothing loaded', async () => {
  const { page, close } = await open(qwenHub({ config: qwen9((c) => { delete c.num_hidden_layers; }) }), { expected: [FAILED_LOAD] });
  const params = await attr(page, '#model-summary', 'data-params');
  await loadHub(page, ID);
  assert.equal(await attr(page, '#hub-box', 'data-state'), 'failed');
  assert.equal(await attr(page, '#hub-box', 'data-source'), null);
  const errors = await errorsOf(page);
  assert.ok(errors.length >= 2, errors.join('\n'));
  assert.match(errors[0], /^config\.json model_type: .*qwen9/);
  assert.match(errors.at(-1), /^config\.json num_hidden_layers: is required by the day-one estimate/);
  assert.equal(await page.isVisible('#hub-assumptions'), false);
  assert.match(await page.textContent('#hub-status'), /day-one estimate from its safetensors headers was refused too\.$/);
  assert.equal(await page.inputValue('#model-preset'), 'llama-3.1-8b');
  assert.equal(await attr(page, '#model-summary', 'data-params'), params);
  await stillWorks(page);
  await close();
});

/**
 * A real config.json of tests/data/hf/ as the Hub serves it: the file without memplan's "_source" note
 * (which names the model and where the copy came from; the core's fixture tests read it the same way).
 */
async function storedConfig(name, id) {
  const doc = JSON.parse(await text(new URL(`hf/${name}.json`, data)));
  assert.ok(doc._source.startsWith(id + ', config.json'), `${name}.json is ${id}'s config.json: ${doc._source}`);
  delete doc._source;
  return JSON.stringify(doc, null, 2) + '\n';
}

/**
 * Five families loaded from the Hub by their real config.json; the Hub API entry, the index and the
 * safetensors file answered as the Hub answers a file it does not serve (404 EntryNotFound), as no real
 * reply of theirs is stored. `params` and `active`: the exact counts tests/core/io/test_hf_fixtures.cpp
 * asserts for the same file (its rows table; the Nemotron-H and NVFP4 cases).
 */
const FAMILIES = [
  // Dense; meta-llama's repositories are gated: loaded with a token, as the Hub asks.
  { kind: 'dense', file: 'llama3_1_8b', id: 'meta-llama/Llama-3.1-8B', type: 'llama', params: '8030261248', active: '8030261248', token: 'hf_replayedTokenForLlama' },
  // Mixture of experts: 94 layers of 128 experts, 8 routed per token (235093634560 − 94·120·3·4096·1536 active).
  { kind: 'MoE', file: 'qwen3_235b_a22b', id: 'Qwen/Qwen3-235B-A22B', type: 'qwen3_moe', params: '235093634560', active: '22190763520' },
  // Hybrid: Mamba-2 layers beside attention layers, MoE MLPs.
  { kind: 'hybrid (Mamba-2 and attention)', file: 'nvidia_nemotron_3_nano_30b_a3b', id: 'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16', type: 'nemotron_h', params: '31577940288', active: '3580076352' },
  // Multi-head latent attention.
  { kind: 'MLA', file: 'deepseek_v3', id: 'deepseek-ai/DeepSeek-V3', type: 'deepseek_v3', params: '671026419200', active: '37552297472' },
  // Quantized: ModelOpt NVFP4 experts, the rest bf16 (Gated DeltaNet and attention layers, MoE).
  { kind: 'quantized (NVFP4)', file: 'nvidia_qwen3_5_122b_a10b_nvfp4', id: 'nvidia/Qwen3.5-122B-A10B-NVFP4', type: 'qwen3_5_moe_text', params: '122562817776', active: null },
];

/** The Hub of one model whose config.json only is served (`token`: gated, a 401 without it). */
function configOnlyHub(id, config, token = '') {
  const files = `${HUB}/${id}/resolve/main/`;
  const missing = { status: 404, headers: { 'x-error-code': 'EntryNotFound', 'content-type': 'application/json' }, body: notFound };
  return (url, headers) => {
    if (token && headers.authorization !== 'Bearer ' + token) return { status: 401, headers: { 'x-error-code': 'GatedRepo', 'content-type': 'application/json' }, body: gated };
    if (url === files + 'config.json') return { body: config, headers: { 'content-type': 'application/json' } };
    if ([`${HUB}/api/models/${id}/revision/main`, files + 'model.safetensors.index.json', files + 'model.safetensors'].includes(url)) return missing;
    return null;
  };
}

for (const family of FAMILIES) {
  test(`${family.kind}: ${family.id}'s real config.json loaded into the form and the estimate, memplan's exact count`, async () => {
    const config = await storedConfig(family.file, family.id);
    const { page, log, close } = await open(configOnlyHub(family.id, config, family.token), { expected: [FAILED_LOAD] });
    const before = Number(await attr(page, '#output', 'data-estimated'));
    await page.locator('#hub-box > summary').click();
    if (family.token) await page.fill('#hub-token', family.token);
    await page.fill('#hub-model', family.id);
    await page.click('#hub-load');
    await page.waitForSelector('#hub-box[data-runs="1"]', { timeout: 30000 });
    // Nothing but the config.json to read: the page says so, naming each file, and keeps the model.
    assert.equal(await attr(page, '#hub-box', 'data-state'), 'failed');
    assert.deepEqual(await errorsOf(page), ['model.safetensors: is not in this repository at revision main (HTTP 404)',
      'Hub API reply: is not in this repository at revision main (HTTP 404)']);
    assert.equal(await page.textContent('#hub-status'), `Loaded config.json of ${family.id} at main; the safetensors headers could not be read, and the Hub API gave no per-dtype counts: no stored sizes to show.`);
    assert.equal(log.filter((r) => r.url.endsWith('/config.json')).length, 1);
    if (family.token) assert.ok(log.every((r) => r.method === 'OPTIONS' || r.headers.authorization === 'Bearer ' + family.token));
    // The model in the form, counted by the core as its fixture test counts it, and the estimate redone.
    // (The text area's reading ends with the form's update; the page's first model, Llama 3.1 8B, is the
    // dense family's own, so the preset cleared is what shows its config.json was read.)
    await page.waitForFunction((n) => !document.querySelector('#hf-box').dataset.pending &&
      document.querySelector('#model-preset').value === '' && document.querySelector('#model-summary').dataset.params === n, family.params);
    assert.equal(await page.inputValue('[name="model.model_type"]'), family.type);
    if (family.active) assert.equal(await attr(page, '#model-summary', 'data-params-active'), family.active);
    assert.ok(Number(await attr(page, '#output', 'data-estimated')) > before);
    assert.equal(await page.isVisible('#errors'), false);
    assert.equal(await page.isVisible('#hf-errors'), false);
    assert.match(await attr(page, '#breakdown tr.total td.num', 'title'), /^[1-9][\d,]* bytes$/);
    assert.match(await page.textContent('#verdict'), /^(Fits|Does not fit): /);
    assert.equal(new URLSearchParams(await page.evaluate(() => location.hash.slice(1))).get('hub'), family.id);
    await close();
  });
}

test('a sharded checkpoint at a revision: the index\'s shards, their headers by range, the same figures', async () => {
  const id = 'memplan-test/qwen3-0.6b-sharded';
  const files = `${HUB}/${id}/resolve/v1.0/`;
  const { page, log, close } = await open((url, headers) => {
    if (url === files + 'config.json') return { body: shards.config };
    if (url === `${HUB}/api/models/${id}/revision/v1.0`) return { body: qwen.api };
    if (url === files + 'model.safetensors.index.json') return { body: shards.index };
    for (const [name, bytes] of Object.entries(shards.files))
      if (url === files + name) return ranged(bytes, headers.range, fileSize(bytes));
    return null;
  });
  await loadHub(page, `https://huggingface.co/${id}/blob/v1.0/config.json`);
  assert.equal(await attr(page, '#hub-box', 'data-source'), 'headers');
  assert.equal(await attr(page, '#hub-dtypes tr[data-dtype="BF16"] td[data-bytes]', 'data-bytes'), STORED_BF16);
  assert.equal(await attr(page, '#hub-count', 'data-params'), MEMPLAN_PARAMS);
  assert.match(await page.textContent('#hub-count'), /311 tensors of 2 files\.$/);
  assert.equal(log.filter((r) => r.headers.range === 'bytes=0-7').length, 2);
  await page.waitForFunction(() => document.querySelector('[name="model.hidden_size"]').value === '1024');
  await page.waitForSelector('#output[data-computed]');
  assert.equal(new URLSearchParams(await page.evaluate(() => location.hash.slice(1))).get('hub'), id + '@v1.0');
  await close();
});

test('a gated model: the 401 explained naming the file; with a token it loads, the token in no link and no storage', async () => {
  const token = 'hf_replayedTokenForTheTest';
  const { page, log, close } = await open(qwenHub({ token }), { expected: [FAILED_LOAD] });
  await loadHub(page, ID);
  assert.deepEqual(await errorsOf(page), ['config.json: gated: accept the licence on the model page and give a token']);
  assert.equal(await attr(page, '#hub-box', 'data-state'), 'failed');
  await stillWorks(page);
  assert.equal(await attr(page, '#hub-token', 'type'), 'password');
  assert.equal(await attr(page, '#hub-token', 'autocomplete'), 'off');
  await page.fill('#hub-token', token);
  await page.click('#hub-load');
  await page.waitForSelector('#hub-box[data-runs="2"]', { timeout: 30000 });
  assert.equal(await attr(page, '#hub-dtypes tr[data-dtype="BF16"] td[data-bytes]', 'data-bytes'), STORED_BF16);
  assert.ok(log.some((r) => r.headers.authorization === 'Bearer ' + token));
  await page.waitForFunction(() => document.querySelector('[name="model.hidden_size"]').value === '1024');
  await page.waitForSelector('#output[data-computed]');
  const kept = await page.evaluate(() => location.href + JSON.stringify(localStorage) + JSON.stringify(sessionStorage));
  assert.ok(!kept.includes(token));
  await close();
});

for (const [name, shard, expected] of [
  // A reply the browser refuses (no CORS headers, a redirect it cannot follow) is a fetch that fails;
  // Playwright's fulfilled replies skip the CORS check (measured), so the failure is replayed as itself.
  ['the file server refusing the cross-origin range request', () => 'fail', [/Failed to load resource: net::ERR_FAILED/]],
  // The page's Content-Security-Policy (connect-src) refuses a redirect to a host it does not list.
  ['a redirect to a CDN host the page does not allow', () => ({ status: 302, headers: { location: 'https://cdn.elsewhere.example/shard?sig=1' } }),
    [/violates the following Content Security Policy directive: "connect-src/, /Failed to load resource: net::ERR_FAILED/]],
]) {
  test(`${name}: the API's per-dtype counts instead, said so`, async () => {
    const { page, close } = await open(qwenHub({ shard }), { expected: [FAILED_LOAD, ...expected] });
    await loadHub(page, ID);
    assert.equal(await attr(page, '#hub-box', 'data-source'), 'api');
    const [error] = await errorsOf(page);
    assert.match(error, /^model\.safetensors: could not be fetched \(Failed to fetch\)/);
    assert.match(await page.textContent('#hub-status'), /The Hub's file server \(its CDN\) did not answer the cross-origin range requests: the stored sizes below are the Hub API's per-dtype counts instead/);
    assert.equal(await attr(page, '#hub-dtypes tr[data-dtype="BF16"] td[data-bytes]', 'data-bytes'), STORED_BF16);
    assert.equal(await attr(page, '#hub-count', 'data-params'), MEMPLAN_PARAMS);
    assert.match(await page.textContent('#hub-difference'), /^155,582,464 values more stored: .*tie_word_embeddings/);
    await page.waitForFunction(() => document.querySelector('[name="model.hidden_size"]').value === '1024');
    await stillWorks(page);
    await close();
  });
}

for (const [name, shard, message] of [
  ['a truncated header', (url, headers) => ranged(qwen.file, headers.range, qwen.size, headers.range !== 'bytes=0-7'),
    'model.safetensors: states a header of 35339 bytes but 17669 bytes came (a truncated reply)'],
  ['a header of 100,000,001 bytes', (url, headers) => {
    const first = Buffer.alloc(8);
    first.writeBigUInt64LE(100000001n);
    return ranged(first, headers.range, qwen.size);
  }, 'model.safetensors: states a header of 100000001 bytes; a safetensors header has 2 to 100000000 bytes'],
]) {
  test(`${name} is refused naming the file; the API's counts are shown instead`, async () => {
    const { page, log, close } = await open(qwenHub({ shard }), { expected: [FAILED_LOAD] });
    await loadHub(page, ID);
    assert.deepEqual(await errorsOf(page), [message]);
    assert.equal(await attr(page, '#hub-box', 'data-source'), 'api');
    assert.equal(await attr(page, '#hub-dtypes tr[data-dtype="BF16"] td[data-bytes]', 'data-bytes'), STORED_BF16);
    assert.ok(log.every((r) => !/bytes=8-100000008/.test(r.headers.range || '')), 'no request for the claimed header');
    await stillWorks(page);
    await close();
  });
}

test('a reply that is not JSON: config.json refused naming it, the estimate unchanged', async () => {
  const { page, close } = await open(qwenHub({ config: html }), { expected: [FAILED_LOAD] });
  const params = await page.textContent('#model-summary');
  await loadHub(page, ID);
  const [error] = await errorsOf(page);
  assert.match(error, /^config\.json: /);
  assert.equal(await attr(page, '#hub-box', 'data-state'), 'failed');
  assert.equal(await page.textContent('#model-summary'), params);
  assert.notEqual(await page.inputValue('#model-preset'), '');
  await stillWorks(page);
  await close();
});

test('an index naming a shard on another site is refused naming the index; nothing is fetched from there', async () => {
  const { page, log, close } = await open((url) => {
    const files = `${HUB}/${ID}/resolve/main/`;
    if (url === files + 'config.json') return { body: qwen.config };
    if (url === `${HUB}/api/models/${ID}/revision/main`) return { body: qwen.api };
    if (url === files + 'model.safetensors.index.json') return { body: elsewhere };
    return null;
  });
  await loadHub(page, ID);
  assert.deepEqual(await errorsOf(page), ["model.safetensors.index.json: weight_map.model.embed_tokens.weight names " +
    "https://elsewhere.example/model-00001-of-00002.safetensors, which is not a file of the model's folder"]);
  assert.equal(await attr(page, '#hub-box', 'data-source'), 'api');
  assert.ok(log.every((r) => !r.url.includes('elsewhere') && !r.url.includes('model-0000')));
  await stillWorks(page);
  await close();
});

test('a server that does not answer: the time-out names the file and the page keeps working', { timeout: 60000 }, async () => {
  const { page, close } = await open(qwenHub({ shard: () => 'hang' }), { expected: [FAILED_LOAD] });
  const started = Date.now();
  await loadHub(page, ID);
  assert.ok(Date.now() - started >= 15000);
  assert.deepEqual(await errorsOf(page), ['model.safetensors: the Hub did not answer within 15,000 ms']);
  assert.equal(await attr(page, '#hub-box', 'data-source'), 'api');
  await stillWorks(page);
  await close();
});

test('what is not a model id is refused naming the field; offline, a link keeps its model fields and says the Hub is unreachable', async () => {
  const { page, close } = await open(() => null);
  await loadHub(page, 'https://huggingface.co/datasets/org/data');
  assert.deepEqual(await errorsOf(page), ["Hub model: is a link to a dataset, not to a model: write org/name, org/name@revision or the model's https://huggingface.co/org/name link"]);
  assert.equal(await attr(page, '#hub-model', 'aria-invalid'), 'true');
  await stillWorks(page);
  await close();
  // A link of a model loaded from the Hub, opened offline: the link's model fields, nothing fetched.
  const online = await open(qwenHub(), { expected: [FAILED_LOAD] });
  await loadHub(online.page, ID);
  // The link once the page answers for the loaded model (its exact count, the pasted model's), not while
  // the form still holds some of the previous preset's fields (Llama 3.1 8B's untied embeddings).
  await online.page.waitForFunction(() => document.querySelector('#model-summary').dataset.params === '596049920' &&
    location.hash.includes('hub='));
  const hash = await online.page.evaluate(() => location.hash);
  await online.close();
  // Offline (navigator.onLine false); the page itself still comes from the local server.
  const context = await env.browser.newContext();
  const problems = [];
  env.problems.push(problems);
  const page2 = await context.newPage();
  page2.on('pageerror', (e) => problems.push('page error: ' + e.message));
  await context.route((url) => url.origin !== env.server.origin, (route) => { problems.push('request: ' + route.request().url()); return route.abort(); });
  await page2.addInitScript(() => Object.defineProperty(Navigator.prototype, 'onLine', { get: () => false }));
  await page2.goto(env.server.origin + '/index.html' + hash);
  await page2.waitForSelector('#hub-box[data-state="failed"]');
  await page2.waitForSelector('#output[data-computed]');
  assert.match(await page2.textContent('#hub-status'), /^The Hub is unreachable \(this browser is offline\): Qwen\/Qwen3-0\.6B at main was not fetched\. The page works as before, with the model fields the link gives\.$/);
  assert.equal(await page2.inputValue('[name="model.hidden_size"]'), '1024');
  assert.equal(await page2.inputValue('[name="model.num_hidden_layers"]'), '28');
  assert.match(await page2.textContent('#model-summary'), /^596M /);
  // Exactly the pasted model's count: the family's QK-norm comes from the core, not a false sent by the form.
  assert.equal(await page2.getAttribute('#model-summary', 'data-params'), '596049920');
  assert.equal(new URLSearchParams(await page2.evaluate(() => location.hash.slice(1))).get('hub'), ID);
  await context.close();
});

test('the Content-Security-Policy connects to the page itself and the Hub\'s origins only, in both builds', async () => {
  const hub = 'https://huggingface.co https://cdn-lfs.huggingface.co https://cdn-lfs-us-1.huggingface.co https://cas-bridge.xethub.hf.co https://cdn-lfs.hf.co https://cdn-lfs-us-1.hf.co https://cdn-lfs-eu-1.hf.co https://transfer.xethub.hf.co https://transfer.xethub-eu.hf.co https://aws.cdn.hf.co https://us.aws.cdn.hf.co https://us-east-1.aws.cdn.hf.co https://us-west-2.aws.cdn.hf.co https://eu-west-3.aws.cdn.hf.co https://ap-southeast-1.aws.cdn.hf.co https://us.gcp.cdn.hf.co https://us-east1.us.gcp.cdn.hf.co https://us-central1.us.gcp.cdn.hf.co https://us-west4.us.gcp.cdn.hf.co https://europe-west4.us.gcp.cdn.hf.co https://asia-southeast1.us.gcp.cdn.hf.co';
  const connect = (html) => html.match(/connect-src ([^;"]*)/)[1];
  assert.equal(connect(await text(new URL('../../dist/index.html', import.meta.url))), "'self' " + hub);
  assert.equal(connect(await text(new URL('../../dist/memplan.html', import.meta.url))), 'data: ' + hub);  // the inlined module
});
