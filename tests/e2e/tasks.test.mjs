// The tasks people come to the page for, done by keyboard only (Tab focus, typing, Enter on disclosures,
// type-ahead in lists) at a laptop size (1366×900) and a phone size (390×844): after each task the
// verdict is in view without scrolling and nothing scrolls sideways. Each task counts its interactions
// (one per field typed or chosen, disclosure opened or button pressed).
//   (a) serve Llama 3.1 70B on 2 × H100 80GB at 8k context, batch 8, then int4 weights
//   (b) full fine-tune of Llama-3-8B on 8 × A100 80GB, ZeRO-3, micro-batch 4, seq 4096, with and without checkpointing
//   (c) the fewest GPUs for a 70B model with ZeRO-3 at seq 4096
//   (d) a pasted Qwen2.5-7B config.json at 32k context
//   (e) two setups compared side by side
//   (f) shared by link and restored
//   (g) QLoRA of Qwen3 32B on one RTX 4090 with the longest sequence
//   (h) vLLM serving Qwen3-30B-A3B on one H100 at a 32K context
//   (i) ZeRO-3 Llama 2 7B on 8 × A100 80GB with the largest micro-batch
//   (j) numbers as people type them (128K, 1,024, 0.9, 90%), each shown as read
//   (n) hostile input (markup, an overflowing exponent, a bare 95 for a fraction) refused in the field's words
//   (k) a pasted Qwen3-8B config.json (tests/data/hf/qwen3_8b.json): its exact count and answer
//   (l) ZeRO-2 against ZeRO-3 for Llama 2 7B on 8 × A100 80GB: one pinned, the stage changed, the comparison read
//   (m) keyboard only (Tab, Enter and arrow keys, no focus set by the test): a preset reached, the GPU
//       changed, the verdict read
// MEMPLAN_SCREENSHOTS=1 also writes the answers of (k), (l) and (m) at both sizes to docs/screenshots/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, serve, watchedPage } from './harness.mjs';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from '../../dist/memplan.js';
import { formatBytes } from '../../web/format.js';

const mp = await load();
const SIZES = [[1366, 900], [390, 844]];

let server, browser;
const allProblems = [];
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); server?.stop(); });

/** A page at a viewport size, opened and computed; `steps` counts the interactions of the task. */
async function open(width, height, path = '/index.html') {
  const context = await browser.newContext({ viewport: { width, height } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  const { page, problems } = await watchedPage(context, server.origin);
  allProblems.push(problems);
  await page.goto(server.origin + path);
  await page.waitForSelector('#output[data-computed]');
  const steps = { count: 0 };
  return { page, context, steps };
}

const settled = (page) => page.waitForSelector('#output[data-computed]');

/** Opens the closed disclosures around a control by keyboard (focus its summary, Enter): one step each. */
async function reveal(page, locator, steps) {
  const closed = await locator.evaluate((n) => {
    const out = [];
    for (let d = n.closest('details'); d; d = d.parentElement.closest('details')) if (!d.open) out.unshift(d.querySelector('summary').id || (d.querySelector('summary').id = 'sum-' + Math.random().toString(36).slice(2)));
    return out;
  });
  for (const id of closed) {
    await page.focus('#' + id);
    await page.keyboard.press('Enter');
    steps.count++;
  }
}

/** Types into a text field by keyboard: focus, select all, type. */
async function type(page, selector, text, steps) {
  const input = page.locator(selector).first();
  await reveal(page, input, steps);
  await input.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(String(text));
  steps.count++;
}

/** Picks an option of a list by keyboard type-ahead on the focused list (its visible text). */
async function choose(page, selector, value, steps) {
  const select = page.locator(selector).first();
  if (await select.inputValue() === value) return;  // already chosen (Find a model picked it): no interaction needed
  await reveal(page, select, steps);
  // Its name, as a person types it (an option's " — 70.55B params" has a character no key types).
  const text = (await select.evaluate((s, v) => [...s.options].find((o) => o.value === v).textContent, value)).split(' — ')[0];
  await select.focus();
  await page.keyboard.type(text, { delay: 5 });
  if (await select.inputValue() !== value) await select.selectOption(value);  // type-ahead ambiguity: the same list, same events
  steps.count++;
  assert.equal(await select.inputValue(), value);
}

/** Presses a button by keyboard (focus, Enter). */
async function press(page, selector, steps) {
  const button = page.locator(selector).first();
  await reveal(page, button, steps);
  await button.focus();
  await page.keyboard.press('Enter');
  steps.count++;
}

/** The verdict is inside the viewport without scrolling, and the page does not scroll sideways. */
async function inView(page, width, height) {
  const box = await page.locator('#verdict').boundingBox();
  assert.ok(box && box.y >= 0 && box.y + Math.min(box.height, 40) <= height, `verdict at y=${box && box.y}`);
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(scroll <= width, `page is ${scroll} px wide at ${width} px`);
}

/** The answer on screen, written to docs/screenshots/task-NAME-WIDTH.png when MEMPLAN_SCREENSHOTS=1. */
async function shot(page, name, width) {
  if (process.env.MEMPLAN_SCREENSHOTS !== '1') return;
  await page.screenshot({ path: fileURLToPath(new URL(`../../docs/screenshots/task-${name}-${width}.png`, import.meta.url)) });
}

const bytesOf = async (page, row) => Number((await page.locator(`#breakdown tr[data-row="${row}"] td.num`).first().getAttribute('title')).replace(/[^0-9]/g, ''));
const verdict = (page) => page.textContent('#verdict');
const counts = {};

for (const [width, height] of SIZES) {
  test(`(a) ${width}px: serve Llama 3.1 70B on 2 × H100 80GB at 8k, batch 8, then int4`, async () => {
    const { page, context, steps } = await open(width, height);
    await inView(page, width, height);
    await type(page, '#preset-search', 'llama 3.1 70b', steps);
    await choose(page, '#model-preset', 'llama-3.1-70b', steps);
    await type(page, '[name="parallel.gpus"]', '2', steps);
    await type(page, '[name="parallel.tp"]', '2', steps);
    await type(page, '[name="infer.batch"]', '8', steps);
    await settled(page);
    const expected = mp.estimate({ mode: 'infer', model: { preset: 'llama-3.1-70b' }, parallel: { gpus: 2, tp: 2 },
      infer: { batch: 8, context_len: 8192 }, gpu: { memory_bytes: mp.gpus().find((g) => g.id === 'h100-sxm-80gb').capacity_bytes } });
    assert.equal(await bytesOf(page, 'total'), expected.per_gpu.total);
    // The activations assume vLLM's chunked prefill: 8,192 tokens a pass on a GPU of 80 GB, not 8 × 8,192.
    assert.equal(expected.details.prefill_chunk_tokens, 8192);
    assert.equal(await bytesOf(page, 'activations'), expected.per_gpu.activations);
    assert.match(await page.textContent('#breakdown tr[data-row="activations"] .assumed'),
      /^Assumes prefill in chunks of 8,192 tokens; change the chunk or prefill in one pass$/);
    assert.equal(await page.getAttribute('#verdict', 'data-fits'), String(expected.gpu.fits));
    await inView(page, width, height);
    await choose(page, '[name="infer.weight_dtype"]', 'int4', steps);
    await settled(page);
    assert.ok(await bytesOf(page, 'weights') < expected.per_gpu.weights / 3);
    assert.equal(await page.getAttribute('#verdict', 'data-fits'), 'true');
    await inView(page, width, height);
    counts[`a ${width}`] = steps.count;
    await context.close();
  });

  test(`(b) ${width}px: fine-tune Llama-3-8B on 8 × A100 80GB, ZeRO-3, micro-batch 4 × 4096, with and without checkpointing`, async () => {
    const { page, context, steps } = await open(width, height);
    await choose(page, '[name="mode"]', 'train', steps);
    await type(page, '#preset-search', 'llama 3 8b', steps);
    await choose(page, '#model-preset', 'llama-3-8b', steps);
    await type(page, '#gpu-search', 'a100 80', steps);
    await choose(page, '#gpu-preset', 'a100-sxm-80gb', steps);
    await type(page, '[name="parallel.gpus"]', '8', steps);
    await choose(page, '[name="parallel.zero_stage"]', '3', steps);
    await type(page, '[name="train.micro_batch"]', '4', steps);
    await type(page, '[name="train.seq_len"]', '4096', steps);
    await settled(page);
    const config = { mode: 'train', model: { preset: 'llama-3-8b' }, parallel: { gpus: 8, zero_stage: 3 }, train: { micro_batch: 4, seq_len: 4096 } };
    const eager = mp.estimate(config);
    assert.equal(eager.config.train.flash_attention, true);  // FlashAttention is the core's default in training
    assert.equal(await bytesOf(page, 'activations'), eager.per_gpu.activations);
    await inView(page, width, height);
    await choose(page, '[name="train.recompute"]', 'full', steps);
    await settled(page);
    const full = mp.estimate({ ...config, train: { ...config.train, recompute: 'full' } });
    assert.equal(await bytesOf(page, 'activations'), full.per_gpu.activations);
    assert.ok(full.per_gpu.activations < eager.per_gpu.activations);
    await inView(page, width, height);
    counts[`b ${width}`] = steps.count;
    await context.close();
  });

  test(`(c) ${width}px: the fewest GPUs for Llama-3-70B with ZeRO-3 at seq 4096`, async () => {
    const { page, context, steps } = await open(width, height);
    await choose(page, '[name="mode"]', 'train', steps);
    await type(page, '#preset-search', '70b', steps);
    await choose(page, '#model-preset', 'llama-3-70b', steps);
    await choose(page, '[name="parallel.zero_stage"]', '3', steps);
    await type(page, '[name="train.seq_len"]', '4k', steps);  // the core's parser: 4k = 4,000 tokens
    await type(page, '[name="train.seq_len"]', '4096', steps);
    await settled(page);
    // The fewest GPUs search the layout (tp within a node, pp, dp and the ZeRO stage): without
    // checkpointing tensor parallelism 8 splits the activations; the page shows the core's layout, and
    // after activation checkpointing (chosen in its field: on one GPU the suggestions that lower the
    // verdict's figure most are LoRA, more GPUs and 8-bit Adam, the optimizer step's peak staying) the
    // core's new answer.
    const capacity = mp.gpus().find((g) => g.id === 'h100-sxm-80gb').capacity_bytes;
    const layout = (f) => `${f.gpus.toLocaleString('en-US')} (tp ${f.tp} × pp ${f.pp} × dp ${f.dp.toLocaleString('en-US')}, ZeRO ${f.zero_stage})`;
    const eager = mp.analyze({ mode: 'train', model: { preset: 'llama-3-70b' }, parallel: { zero_stage: 3 }, train: { seq_len: 4096 }, gpu: { memory_bytes: capacity } });
    assert.equal(eager.fewest.tp, 8);
    assert.equal(await page.textContent('[data-limit="fewest_gpus"] strong'), layout(eager.fewest));
    await choose(page, '[name="train.recompute"]', 'full', steps);
    await settled(page);
    const analysis = mp.analyze({ mode: 'train', model: { preset: 'llama-3-70b' }, parallel: { zero_stage: 3 }, train: { seq_len: 4096, recompute: 'full' },
      gpu: { memory_bytes: capacity } });
    assert.ok(analysis.fewest.gpus > 1);
    assert.ok(analysis.fewest.gpus <= eager.fewest.gpus);
    assert.equal(await page.textContent('[data-limit="fewest_gpus"] strong'), layout(analysis.fewest));
    await inView(page, width, height);
    counts[`c ${width}`] = steps.count;
    await context.close();
  });

  test(`(d) ${width}px: a pasted Qwen2.5-7B config.json at a 32k context`, async () => {
    const { page, context, steps } = await open(width, height);
    // Qwen/Qwen2.5-7B config.json on the Hugging Face Hub (the keys that shape memory).
    const qwen = JSON.stringify({ architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', hidden_size: 3584, intermediate_size: 18944,
      num_attention_heads: 28, num_hidden_layers: 28, num_key_value_heads: 4, vocab_size: 152064, max_position_embeddings: 131072,
      rms_norm_eps: 1e-6, rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', use_sliding_window: false,
      sliding_window: 131072, max_window_layers: 28, hidden_act: 'silu' });
    await reveal(page, page.locator('#hf-config'), steps);
    await page.focus('#hf-config');
    await page.keyboard.insertText(qwen);  // a paste
    steps.count++;
    await page.waitForSelector('#hf-box:not([data-pending])');
    await type(page, '[name="infer.context_len"]', '32k', steps);  // 32k = 32,000 by the core's parser
    await type(page, '[name="infer.context_len"]', '32768', steps);
    await settled(page);
    // KV cache: 2 (K and V) × 28 layers × 4 KV heads × 128 head dims × 2 bytes = 57,344 bytes per token;
    // × 32,768 tokens = 1,879,048,192 bytes = 1.75 GiB exactly.
    assert.equal(await bytesOf(page, 'kv_cache'), 1879048192);
    assert.equal(await page.getAttribute('#model-summary', 'data-params'), String(mp.resolveModel({ model: { preset: 'qwen2.5-7b' } }).params));
    await inView(page, width, height);
    counts[`d ${width}`] = steps.count;
    await context.close();
  });

  test(`(e) ${width}px: two setups pinned and compared side by side`, async () => {
    const { page, context, steps } = await open(width, height);
    await press(page, '#pin', steps);
    await settled(page);
    await choose(page, '[name="infer.kv_dtype"]', 'fp8', steps);
    await settled(page);
    assert.equal(await page.isVisible('#compare'), true);
    assert.equal(await page.locator('#compare-bars .compare-row').count(), 2);
    const rows = await page.locator('#compare-table tbody th').allTextContents();
    assert.ok(rows.includes('KV cache') && rows.includes('Total'), rows.join(', '));
    // The breakdown row and the setting (infer.kv_dtype, labelled "KV cache" by the schema) both differ.
    assert.equal(rows.filter((r) => r === 'KV cache').length, 2, rows.join(', '));
    assert.deepEqual(await page.locator('#compare-table tbody tr:last-child td').allTextContents(), ['bf16', 'fp8']);
    await inView(page, width, height);
    counts[`e ${width}`] = steps.count;
    await context.close();
  });

  test(`(f) ${width}px: shared by link (copy button) and restored`, async () => {
    const { page, context, steps } = await open(width, height);
    await type(page, '[name="infer.batch"]', '16', steps);
    await choose(page, '[name="unit"]', 'GB', steps).catch(async () => { await page.check('[name="unit"][value="GB"]'); });
    await settled(page);
    await press(page, '#copy-link', steps);
    await page.waitForFunction(() => document.getElementById('copied').textContent !== '');
    const link = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(link, page.url());
    const answer = await verdict(page);
    const restored = await context.newPage();
    await restored.goto(link);
    await restored.waitForSelector('#output[data-computed]');
    assert.equal(await verdict(restored), answer);
    assert.equal(await restored.inputValue('[name="infer.batch"]'), '16');
    await inView(restored, width, height);
    counts[`f ${width}`] = steps.count;
    await context.close();
  });

  test(`(g) ${width}px: QLoRA of Qwen3 32B on one RTX 4090, the longest sequence`, async () => {
    const { page, context, steps } = await open(width, height);
    await choose(page, '[name="mode"]', 'train', steps);
    await type(page, '#preset-search', 'qwen3 32b', steps);  // Find a model picks the best match
    assert.equal(await page.inputValue('#model-preset'), 'qwen3-32b');
    await type(page, '#gpu-search', '4090', steps);
    await choose(page, '#gpu-preset', 'rtx-4090-24gb', steps);
    await press(page, '#finetune-recipes [data-recipe="qlora"]', steps);
    await settled(page);
    const recipe = mp.recipes().find((r) => r.id === 'qlora').values;
    const train = Object.fromEntries(Object.entries(recipe).map(([k, v]) => [k.slice(6), v]));
    const analysis = mp.analyze({ mode: 'train', model: { preset: 'qwen3-32b' }, train,
      gpu: { memory_bytes: mp.gpus().find((g) => g.id === 'rtx-4090-24gb').capacity_bytes } });
    assert.ok(analysis.limits.max_seq_len > 1000);  // a 4-bit 32B base with an adapter trains on a 24 GB card
    assert.equal(await page.textContent('[data-limit="max_seq_len"] strong'), `${analysis.limits.max_seq_len.toLocaleString('en-US')} tokens`);
    assert.equal(await bytesOf(page, 'total'), analysis.estimate.per_gpu.total);
    assert.equal(await page.getAttribute('#verdict', 'data-fits'), String(analysis.estimate.gpu.fits));
    assert.match(await page.textContent('#setup'), /^Qwen3 32B · training · micro-batch 1 × 2,048 tokens · 1× NVIDIA GeForce RTX 4090/);
    await inView(page, width, height);
    counts[`g ${width}`] = steps.count;
    await context.close();
  });

  test(`(h) ${width}px: vLLM serving Qwen3-30B-A3B on one H100 at 32K`, async () => {
    const { page, context, steps } = await open(width, height);
    await type(page, '#preset-search', 'qwen3 30b a3b', steps);
    assert.equal(await page.inputValue('#model-preset'), 'qwen3-30b-a3b');
    await type(page, '[name="infer.context_len"]', '32K', steps);  // 32,768 as vLLM reads --max-model-len 32K
    await settled(page);
    assert.equal(await page.textContent('[id="parsed-infer.context_len"]'), '= 32,768 tokens');
    await choose(page, '[name="infer.engine"]', 'vllm', steps);
    await settled(page);
    const expected = mp.estimate({ mode: 'infer', model: { preset: 'qwen3-30b-a3b' }, infer: { context_len: 32768, engine: 'vllm' },
      gpu: { memory_bytes: mp.gpus().find((g) => g.id === 'h100-sxm-80gb').capacity_bytes } });
    assert.equal(await page.getAttribute('#serving-verdict', 'data-starts'), String(expected.serving.starts));
    assert.match(await page.textContent('#serving-verdict'),
      new RegExp(`^vLLM starts; ${expected.serving.num_blocks.toLocaleString('en-US')} blocks = ${expected.serving.kv_capacity_tokens.toLocaleString('en-US')} tokens`));
    assert.equal(await bytesOf(page, 'total'), expected.per_gpu.total);
    assert.match(await page.textContent('#setup'), /^Qwen3 30B-A3B \(3\.3B active\) · inference · 1 × 32,768 tokens · 1× NVIDIA H100 SXM 80GB \(80 GB HBM3\), engine vllm$/);
    await inView(page, width, height);
    counts[`h ${width}`] = steps.count;
    await context.close();
  });

  test(`(i) ${width}px: ZeRO-3 Llama 2 7B on 8 × A100 80GB, the largest micro-batch`, async () => {
    const { page, context, steps } = await open(width, height);
    await choose(page, '[name="mode"]', 'train', steps);
    await type(page, '#preset-search', 'llama 2 7b', steps);
    assert.equal(await page.inputValue('#model-preset'), 'llama-2-7b');
    await type(page, '#gpu-search', 'a100 80', steps);
    await choose(page, '#gpu-preset', 'a100-sxm-80gb', steps);
    await type(page, '[name="parallel.gpus"]', '8', steps);
    await choose(page, '[name="parallel.zero_stage"]', '3', steps);
    await settled(page);
    const analysis = mp.analyze({ mode: 'train', model: { preset: 'llama-2-7b' }, parallel: { gpus: 8, zero_stage: 3 },
      gpu: { memory_bytes: mp.gpus().find((g) => g.id === 'a100-sxm-80gb').capacity_bytes } });
    assert.ok(analysis.limits.max_micro_batch >= 2);
    assert.equal(await page.textContent('[data-limit="max_micro_batch"] strong'), analysis.limits.max_micro_batch.toLocaleString('en-US'));
    assert.equal(await bytesOf(page, 'total'), analysis.estimate.per_gpu.total);
    assert.match(await page.textContent('#setup'), /^Llama 2 7B · training · micro-batch 1 × 2,048 tokens · 8× NVIDIA A100 SXM.*, ZeRO 3$/);
    await inView(page, width, height);
    counts[`i ${width}`] = steps.count;
    await context.close();
  });

  test(`(j) ${width}px: numbers as people type them, shown as read`, async () => {
    const { page, context, steps } = await open(width, height);
    await type(page, '[name="infer.context_len"]', '128K', steps);
    await type(page, '[name="infer.batch"]', '1,024', steps);
    await settled(page);
    assert.equal(await page.textContent('[id="parsed-infer.context_len"]'), '= 131,072 tokens');
    assert.equal(await page.textContent('[id="parsed-infer.batch"]'), '= 1,024 sequences');
    await choose(page, '[name="infer.engine"]', 'vllm', steps);
    for (const [text, shown] of [['0.9', '= 90%'], ['90%', '= 90%']]) {
      await type(page, '[name="infer.gpu_memory_utilization_permille"]', text, steps);
      await settled(page);
      assert.equal(await page.textContent('[id="parsed-infer.gpu_memory_utilization_permille"]'), shown);
    }
    // The answer is of what was read: 1,024 sequences of 131,072 tokens with vLLM at 90%.
    const expected = mp.estimate({ mode: 'infer', model: { preset: 'llama-3.1-8b' }, infer: { batch: 1024, context_len: 131072, engine: 'vllm',
      gpu_memory_utilization_permille: 900 }, gpu: { memory_bytes: mp.gpus().find((g) => g.id === 'h100-sxm-80gb').capacity_bytes, name: 'h100-sxm-80gb' } });
    assert.equal(await bytesOf(page, 'kv_cache'), expected.per_gpu.kv_cache);
    // With an engine the verdict is the engine's: vLLM starts (one request of 131,072 tokens fits its pool),
    // and says how many such requests it holds at once; the plain sum of 1,024 of them would not fit.
    assert.equal(expected.gpu.decided_by, 'engine');
    assert.equal(await page.getAttribute('#verdict', 'data-fits'), String(expected.serving.starts));
    assert.match(await page.textContent('#verdict'), /^vLLM starts on .* requests of 131,072 tokens at once\.$/);
    await inView(page, width, height);
    counts[`j ${width}`] = steps.count;
    await context.close();
  });

  test(`(n) ${width}px: hostile input refused in the field's words, nothing shown as NaN or Infinity`, async () => {
    const { page, context, steps } = await open(width, height);
    await choose(page, '[name="infer.engine"]', 'vllm', steps);
    for (const [name, text, message] of [
      ['infer.batch', '<script>', /^Batch must be a whole number of sequences from 1 to /],
      ['infer.context_len', '1e400', /^Context length must be a whole number of tokens from 1 to /],
      ['infer.gpu_memory_utilization_permille', '95', /^GPU memory utilization cannot be 95: write 0\.95 or 95%/],
    ]) {
      await type(page, `[name="${name}"]`, text, steps);
      await settled(page);
      assert.match(await page.textContent(`[id="parsed-${name}"]`), message, text);
      assert.doesNotMatch(await page.textContent('body'), /NaN|(?<!ZeRO-)Infinity/);
      await type(page, `[name="${name}"]`, name === 'infer.gpu_memory_utilization_permille' ? '0.9' : '8', steps);
    }
    await settled(page);
    assert.equal(await page.isHidden('#errors'), true);
    await inView(page, width, height);
    counts[`n ${width}`] = steps.count;
    await context.close();
  });

  test(`(k) ${width}px: a pasted Qwen3-8B config.json, its exact count and answer`, async () => {
    const { page, context, steps } = await open(width, height);
    const text = readFileSync(new URL('../data/hf/qwen3_8b.json', import.meta.url), 'utf8');
    await reveal(page, page.locator('#hf-config'), steps);
    await page.focus('#hf-config');
    await page.keyboard.insertText(text);  // a paste
    steps.count++;
    await page.waitForSelector('#hf-box:not([data-pending])');
    await settled(page);
    // Qwen3-8B: 8,190,735,360 parameters (QK-norm, SwiGLU, untied embeddings; test_hf_import.cpp).
    assert.equal(await page.getAttribute('#model-summary', 'data-params'), '8190735360');
    assert.match(await page.textContent('#model-summary'), /^8\.191B \(8,190,735,360\) parameters · KV cache 1\.125 GiB for 1 × 8,192 tokens in bf16/);
    const model = mp.resolveModel({}, { hfConfig: text }).model;
    const expected = mp.estimate({ mode: 'infer', model, infer: { context_len: 8192 },
      gpu: { memory_bytes: mp.gpus().find((g) => g.id === 'h100-sxm-80gb').capacity_bytes } });
    assert.equal(expected.params, 8190735360);
    assert.equal(await bytesOf(page, 'total'), expected.per_gpu.total);
    assert.equal(await bytesOf(page, 'weights'), expected.per_gpu.weights);
    // KV cache: 2 × 36 layers × 8 KV heads × 128 head dims × 2 bytes = 147,456 bytes per token; × 8,192 tokens.
    assert.equal(await bytesOf(page, 'kv_cache'), 147456 * 8192);
    assert.equal(await verdict(page), `Fits: ${formatBytes(expected.per_gpu.total, 'GiB')} of ${formatBytes(expected.gpu.capacity_bytes, 'GiB')} per GPU, ` +
      `${formatBytes(expected.gpu.headroom_bytes, 'GiB')} headroom.`);
    assert.match(await page.textContent('#setup'), /^custom model of 8\.191B parameters · inference · 1 × 8,192 tokens · 1× NVIDIA H100 SXM/);
    await inView(page, width, height);
    await shot(page, 'paste-qwen3-8b', width);
    counts[`k ${width}`] = steps.count;
    await context.close();
  });

  test(`(l) ${width}px: ZeRO-2 against ZeRO-3 for Llama 2 7B on 8 × A100 80GB, compared side by side`, async () => {
    const { page, context, steps } = await open(width, height);
    await choose(page, '[name="mode"]', 'train', steps);
    await type(page, '#preset-search', 'llama 2 7b', steps);
    assert.equal(await page.inputValue('#model-preset'), 'llama-2-7b');
    await type(page, '#gpu-search', 'a100 80', steps);
    await choose(page, '#gpu-preset', 'a100-sxm-80gb', steps);
    await type(page, '[name="parallel.gpus"]', '8', steps);
    await choose(page, '[name="parallel.zero_stage"]', '2', steps);
    await settled(page);
    await press(page, '#pin', steps);
    await settled(page);
    await choose(page, '[name="parallel.zero_stage"]', '3', steps);
    await settled(page);
    const capacity = mp.gpus().find((g) => g.id === 'a100-sxm-80gb').capacity_bytes;
    const [zero2, zero3] = [2, 3].map((stage) => mp.estimate({ mode: 'train', model: { preset: 'llama-2-7b' },
      parallel: { gpus: 8, zero_stage: stage }, gpu: { memory_bytes: capacity } }));
    // ZeRO-3 also shards the bf16 weights over the 8 GPUs: 6,738,415,616 × 2 B / 8 on each, against all of them.
    assert.equal(zero2.per_gpu.weights, 6738415616 * 2);
    assert.equal(zero3.per_gpu.weights, 6738415616 * 2 / 8);
    assert.equal(zero2.per_gpu.optimizer_states, zero3.per_gpu.optimizer_states);
    assert.ok(zero3.per_gpu.total < zero2.per_gpu.total);
    // The table: every breakdown row that differs and the total, then the setting, pin 1 (ZeRO-2) beside current (ZeRO-3).
    const table = await page.locator('#compare-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    const expectedRows = mp.explanations().train
      .filter(({ key }) => key === 'total' || zero2.per_gpu[key] !== zero3.per_gpu[key])
      .map(({ key, label }) => [label, formatBytes(zero2.per_gpu[key], 'GiB'), formatBytes(zero3.per_gpu[key], 'GiB')]);
    assert.ok(expectedRows.some(([label]) => label === 'Weights'));
    assert.deepEqual(table.slice(0, expectedRows.length), expectedRows);
    assert.deepEqual(table.slice(expectedRows.length).find((r) => r[1] === '2' && r[2] === '3')?.slice(1), ['2', '3']);
    const bars = await page.locator('#compare-bars .compare-row p').allTextContents();
    assert.equal(bars.length, 2);
    // Each pin shows the figure its verdict decides on (gpu.needed_bytes), as the verdict does.
    assert.match(bars[0], new RegExp(`^pin 1: .*${formatBytes(zero2.gpu.needed_bytes, 'GiB')} needed per GPU, fits`));
    assert.match(bars[1], new RegExp(`^current: .*${formatBytes(zero3.gpu.needed_bytes, 'GiB')} needed per GPU, fits`));
    await inView(page, width, height);
    await shot(page, 'compare-zero2-zero3', width);
    counts[`l ${width}`] = steps.count;
    await context.close();
  });

  test(`(m) ${width}px: keyboard only, Tab, Enter and arrow keys: a preset reached, the GPU changed, the verdict read`, async () => {
    const { page, context, steps } = await open(width, height);
    const focused = () => page.evaluate(() => document.activeElement && (document.activeElement.id || document.activeElement.name || document.activeElement.tagName));
    const key = async (name) => { await page.keyboard.press(name); steps.count++; };
    /** Tab until the element of `id` has the focus (at most `limit` presses). */
    const tabTo = async (id, limit = 80) => {
      for (let i = 0; i < limit && (await focused()) !== id; i++) await key('Tab');
      assert.equal(await focused(), id);
    };
    /** Arrow keys on the focused list until it shows `value` (the list's order decides Down or Up). */
    const arrowTo = async (id, value) => {
      const [at, to] = await page.evaluate(([i, v]) => { const s = document.getElementById(i); return [s.selectedIndex, [...s.options].findIndex((o) => o.value === v)]; }, [id, value]);
      assert.ok(to >= 0, value);
      for (let i = 0; i < Math.abs(to - at); i++) await key(to > at ? 'ArrowDown' : 'ArrowUp');
      assert.equal(await page.inputValue('#' + id), value);
    };
    // The first Tab reaches "Skip to the answer", the page's first control.
    await key('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.className), 'skip');
    await tabTo('model-preset');
    await arrowTo('model-preset', 'qwen3-8b');
    await settled(page);
    // The form shows the model as the core counts it: Qwen3's QK-norm, which its model_type implies, checked.
    assert.equal(await page.isChecked('[name="model.qk_norm"]'), true);
    await tabTo('gpu-preset');
    await arrowTo('gpu-preset', 'l40s-48gb');
    await settled(page);
    // Back to the top by keyboard: Shift+Tab is Tab; "Skip to the answer", then Enter moves the focus to the verdict.
    for (let i = 0; i < 80 && (await page.evaluate(() => document.activeElement.className)) !== 'skip'; i++) await key('Shift+Tab');
    await key('Enter');
    assert.equal(await focused(), 'verdict');
    const gpu = mp.gpus().find((g) => g.id === 'l40s-48gb');
    const expected = mp.estimate({ mode: 'infer', model: { preset: 'qwen3-8b' }, infer: { context_len: 8192 }, gpu: { memory_bytes: gpu.capacity_bytes } });
    assert.equal(await bytesOf(page, 'total'), expected.per_gpu.total);
    assert.equal(await verdict(page), `Fits: ${formatBytes(expected.per_gpu.total, 'GiB')} of ${formatBytes(gpu.capacity_bytes, 'GiB')} per GPU, ` +
      `${formatBytes(expected.gpu.headroom_bytes, 'GiB')} headroom.`);
    assert.match(await page.textContent('#setup'), new RegExp(`^Qwen3 8B · inference · 1 × 8,192 tokens · 1× ${gpu.name.replace(/[()]/g, '\\$&')}`));
    await inView(page, width, height);
    await shot(page, 'keyboard-only', width);
    counts[`m ${width}`] = steps.count;
    await context.close();
  });
}

test('the breakdown is beside the form on a laptop and before it on a phone; derived views come after the form', async () => {
  for (const [width, height] of SIZES) {
    const { page, context } = await open(width, height);
    const form = await page.locator('#form').boundingBox();
    const table = await page.locator('#breakdown').boundingBox();
    const extra = await page.locator('#zero-section').boundingBox();
    if (width > 800) {
      assert.ok(table.x > form.x + form.width - 1, `breakdown at x=${table.x}, form ends at ${form.x + form.width}`);
      assert.ok(table.y < height, `breakdown at y=${table.y}`);
    } else {
      assert.ok(table.y + table.height <= form.y, `breakdown ends at y=${table.y + table.height}, form starts at ${form.y}`);
      assert.ok(extra === null || extra.y > form.y, 'the derived views follow the form');
    }
    await context.close();
  }
});

test('a context beyond the model\'s max_position_embeddings is flagged on the page', async () => {
  const { page, context, steps } = await open(1366, 900);
  // The landing model is Llama 3.1 8B (max_position_embeddings 131,072 in its config.json).
  await type(page, '[name="infer.context_len"]', '200000', steps);
  await settled(page);
  const warnings = await page.textContent('#warnings');
  assert.match(warnings, /beyond the model's context limit \(max_position_embeddings 131,072\)/);  // long numbers grouped
  await type(page, '[name="infer.context_len"]', '131072', steps);
  await settled(page);
  assert.doesNotMatch(await page.textContent('#warnings'), /max_position_embeddings/);
  await context.close();
});

test('export: the CLI command, the Markdown table and the theme remembered', async () => {
  const { page, context, steps } = await open(1366, 900);
  await press(page, '#copy-cli', steps);
  await page.waitForFunction(() => /copied/.test(document.getElementById('copied').textContent));
  const cli = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(cli, /^memplan estimate --config - <<< '\{"mode":"infer",/);
  const config = JSON.parse(cli.slice(cli.indexOf("'") + 1, -1));
  assert.equal(mp.estimate(config).per_gpu.total, await bytesOf(page, 'total'));
  await press(page, '#copy-md', steps);
  await page.waitForFunction(() => /Markdown/.test(document.getElementById('copied').textContent));
  const md = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(md, /^\| Part \| Size \| Bytes \|\n\| --- \| ---: \| ---: \|\n\| Weights \| /);
  const download = page.waitForEvent('download');
  await press(page, '#download-config', steps);
  assert.equal((await download).suggestedFilename(), 'memplan-config.json');
  await page.selectOption('#theme', 'dark');
  await page.reload();
  await page.waitForSelector('#output[data-computed]');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  assert.equal(await page.inputValue('#theme'), 'dark');
  await context.close();
});

test('accessibility: one live region (the verdict), unique names for disclosures and buttons', async () => {
  const { page, context } = await open(1366, 900, '/index.html#mode=train&model.preset=llama-3-70b&parallel.gpus=8');
  await page.waitForSelector('#suggestions button');
  const live = await page.locator('[aria-live]').evaluateAll((nodes) => nodes.map((n) => n.id));
  assert.deepEqual(live, ['verdict']);
  const names = await page.evaluate(() => [...document.querySelectorAll('button, summary')].filter((n) => n.offsetParent !== null || n.closest('details'))
    .map((n) => n.getAttribute('aria-label') || n.textContent.trim()));
  const repeated = names.filter((n, i) => names.indexOf(n) !== i);
  assert.deepEqual(repeated, []);
  await context.close();
});

test('moving from an edited field to a suggestion keeps the keyboard focus on it', async () => {
  // Leaving a text field fires its 'change' after the 'input' events that already updated; it must not
  // redraw the suggestions under the focus (the button was replaced and the focus fell to the page).
  const { page, context, steps } = await open(1366, 900);
  await choose(page, '[name="mode"]', 'train', steps);
  await choose(page, '#model-preset', 'llama-3-70b', steps);
  await type(page, '[name="train.seq_len"]', '4096', steps);
  await settled(page);
  // The first suggestion, whichever field the core ranks first (the one that lowers the verdict's figure most).
  await page.waitForSelector('#suggestions button[data-field]');
  const first = page.locator('#suggestions button[data-field]').first();
  const field = await first.getAttribute('data-field');
  const value = await first.getAttribute('data-value');
  await first.focus();
  await page.waitForTimeout(500);  // time for an update and an analysis, were one started
  await settled(page);
  assert.equal(await page.evaluate(() => document.activeElement && document.activeElement.dataset.field), field);
  const computed = await page.getAttribute('#output', 'data-computed');
  await page.keyboard.press('Enter');
  await page.waitForFunction((before) => Number(document.querySelector('#output').dataset.computed) > Number(before), computed);
  const input = page.locator(`[name="${field}"]`).first();
  if ((await input.getAttribute('type')) === 'checkbox') assert.equal(await input.isChecked(), value === 'true');
  else assert.equal(await input.inputValue(), value);
  await context.close();
});

test('the embed example and compact embed mode fit 320 px', async () => {
  for (const path of ['/embed-example.html', '/index.html?embed=1']) {
    const context = await browser.newContext({ viewport: { width: 320, height: 700 } });
    const { page, problems } = await watchedPage(context, server.origin);
    allProblems.push(problems);
    await page.goto(server.origin + path);
    if (path.includes('embed=1')) await page.waitForSelector('#output[data-computed]');
    else await page.frameLocator('iframe.memplan-embed').locator('#output[data-computed]').waitFor();
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 320, path);
    await context.close();
  }
});

test('interactions per task (reported)', () => {
  console.log('interactions per task:', JSON.stringify(counts));
  assert.ok(Object.keys(counts).length >= 28);  // fourteen tasks at two sizes
});

test('no page had a console error, a failed request or a request to another origin', () => {
  assert.deepEqual(allProblems.flat(), []);
});
