// The inverse answers in Debian's Chromium, from the one search in the core (core/src/search/inverse.cpp):
// Llama 3.1 70B serving in bf16 on 2 × H100 80GB at tp 2, a 32,768-token context and batch 8 does not
// fit (about 107 GiB per GPU, with the prefill in chunks of vLLM's 8,192 tokens). The fewest GPUs must search the layout (tp 4 on 4 GPUs fits), and "what
// would make it fit" must list every serving change that helps — narrower weights, an fp8 KV cache,
// tp 4, half the batch, half the context — each with its total, as the core's analyze() says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { servedChromium, watchedPage } from './harness.mjs';
import { load } from '../../dist/memplan.js';

const mp = await load();
const GiB = 2 ** 30;

const env = servedChromium();

const h100 = mp.gpus().find((g) => g.id === 'h100-sxm-80gb');
const config = {
  mode: 'infer', model: { preset: 'llama-3.1-70b' }, parallel: { gpus: 2, tp: 2 },
  infer: { context_len: 32768, batch: 8 }, gpu: { memory_bytes: h100.capacity_bytes },
};

test('the core: one answer — fewest GPUs 4 (tp 4), and the serving changes that help', () => {
  const a = mp.analyze(config);
  assert.deepEqual(a.errors, []);
  assert.equal(a.estimate.gpu.fits, false);
  const total = a.estimate.per_gpu.total;
  assert.ok(total > 105 * GiB && total < 108 * GiB, `about 107 GiB per GPU, got ${total / GiB}`);
  // The prefill workspace: 8,192 tokens a pass × 118,784 live bytes a token (the whole 8 × 32,768 tokens
  // in one pass would be 29 GiB, and the total about 135 GiB).
  assert.equal(a.estimate.per_gpu.activations, 8192 * 118784);
  assert.deepEqual(a.fewest, { gpus: 4, tp: 4, pp: 1, dp: 1, zero_stage: 0 });
  for (const s of a.stages) assert.equal(s.fewest_gpus, 4);  // every view reads the same search
  // No second answer: the serving object keeps only the engine's own figures.
  assert.deepEqual(Object.keys(a.serving), ['max_concurrent_requests', 'longest_max_model_len', 'longest_beyond_context_limit']);
  const byChange = new Map(a.suggestions.map((s) => [`${s.field}=${s.to}`, s]));
  for (const key of ['infer.weight_dtype=fp8', 'infer.weight_dtype=int4', 'infer.kv_dtype=fp8', 'parallel.tp=4', 'infer.batch=4', 'infer.context_len=16384'])
    assert.ok(byChange.has(key), `${key} is suggested: ${[...byChange.keys()].join(', ')}`);
  for (const s of a.suggestions) {
    assert.equal(s.total + s.saving_bytes, total);
    assert.ok(s.saving_bytes > 0);
  }
  // tp 4 sets the GPUs with it, and fits; an fp8 KV cache halves the 40 GiB KV cache of one GPU
  // (2 · 80 layers · 4 KV heads · 128 · 2 B · 32,768 · 8 = 42,949,672,960 B).
  assert.deepEqual(byChange.get('parallel.tp=4').also, { 'parallel.gpus': 4 });
  assert.equal(byChange.get('parallel.tp=4').fits, true);
  assert.equal(a.estimate.per_gpu.kv_cache, 42949672960);
  assert.equal(byChange.get('infer.kv_dtype=fp8').saving_bytes, 42949672960 / 2);
  // Each suggestion's total is the estimate of the changed configuration.
  const tp4 = mp.estimate({ ...config, parallel: { gpus: 4, tp: 4 } });
  assert.equal(byChange.get('parallel.tp=4').total, tp4.per_gpu.total);
  assert.equal(a.plan.fits, true);
  assert.ok(a.plan.changes.length >= 1);
});

for (const [width, height] of [[1366, 900], [390, 844]]) {
  test(`the page at ${width}px shows the same answers, and applying tp 4 makes it fit`, async () => {
    const context = await env.browser.newContext({ viewport: { width, height } });
    const { page, problems } = await watchedPage(context, env.server.origin);
    env.problems.push(problems);
    await page.goto(env.server.origin + '/index.html');
    await page.waitForSelector('#output[data-computed]');
    await page.locator('[name="mode"]').selectOption('infer');
    await page.locator('#model-preset').selectOption('llama-3.1-70b');
    await page.locator('#gpu-preset').selectOption('h100-sxm-80gb');
    for (const [name, value] of [['parallel.gpus', '2'], ['parallel.tp', '2'], ['infer.context_len', '32768'], ['infer.batch', '8']]) {
      const input = page.locator(`[name="${name}"]`);
      await input.evaluate((n) => { for (let d = n.closest('details'); d; d = d.parentElement.closest('details')) d.open = true; });
      await input.fill(value);
    }
    await page.waitForSelector('#output[data-computed]');
    await page.waitForSelector('[data-limit="fewest_gpus"]');
    await page.waitForFunction(() => document.querySelector('#suggestions button[data-field="parallel.tp"]'));
    assert.equal(await page.textContent('[data-limit="fewest_gpus"] strong'), '4 (tp 4 × pp 1)');
    assert.equal(await page.textContent('#suggestions-title'), 'What would make it fit');
    const buttons = await page.locator('#suggestions button').evaluateAll((bs) => bs.map((b) => `${b.dataset.field}=${b.dataset.value}`));
    for (const key of ['infer.weight_dtype=fp8', 'infer.weight_dtype=int4', 'infer.kv_dtype=fp8', 'parallel.tp=4', 'infer.batch=4', 'infer.context_len=16384'])
      assert.ok(buttons.includes(key), `${key} listed: ${buttons.join(', ')}`);
    assert.doesNotMatch(await page.textContent('#suggestions'), /No single serving change/);
    await page.locator('#suggestions button[data-field="parallel.tp"]').click();
    await page.waitForFunction(() => document.querySelector('[name="parallel.gpus"]').value === '4');
    await page.waitForSelector('#output[data-computed]');
    assert.equal(await page.inputValue('[name="parallel.tp"]'), '4');
    await page.waitForFunction(() => document.querySelector('#suggestions-title').textContent === 'What would save memory');
    await context.close();
  });
}
