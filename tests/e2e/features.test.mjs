// The feature panels in Debian's Chromium: fine-tuning (a QLoRA run end to end), the serving verdict (a
// vLLM start-up log reproduced, and its refusal with the longest max_model_len that starts), the other
// tools' figures (DeepSpeed's ZeRO-3 estimator), modern models pasted as config.json (Qwen3-30B-A3B,
// DeepSeek-V3) with the refusal of an unsupported key, and the preset search. Expected numbers are the
// core's tested ones (tests/core/serving/test_serving.cpp, test_arch_2026.cpp, test_adapters*.cpp) or read from
// the same module the page runs; no console errors and no request to another origin.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { launch, serve, watchedPage } from './harness.mjs';
import { load } from '../../dist/memplan.js';

const mp = await load();
const GiB = 2 ** 30;
/** A figure an engine logs in GiB, as bytes (tests/core/serving/test_serving.cpp gib()). */
const gib = (value) => Math.round(value * GiB);

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
  assert.deepEqual(allProblems.flat(), []);
});

async function open(path = '/index.html') {
  const { page, problems } = await watchedPage(context, server.origin);
  allProblems.push(problems);
  await page.goto(server.origin + path);
  await page.waitForSelector('#output[data-computed]');
  return page;
}

async function settled(page) {
  await page.waitForSelector('#output[data-computed]');
}

/** Sets a form field by its name, as a person would (the feature panels' controls too). */
async function set(page, name, value) {
  const input = page.locator(`[name="${name}"]`);
  await input.first().evaluate((n) => { for (let d = n.closest('details'); d; d = d.parentElement.closest('details')) d.open = true; });
  const type = await input.first().getAttribute('type');
  if (type === 'checkbox') await input.setChecked(value);
  else if (type === 'radio') await page.locator(`[name="${name}"][value="${value}"]`).check();
  else if (await input.evaluate((n) => n.tagName) === 'SELECT') await input.selectOption(String(value));
  else await input.fill(String(value));
}

async function setAll(page, values) {
  for (const [name, value] of Object.entries(values)) await set(page, name, value);
  await settled(page);
}

/** Exact bytes of a breakdown row, read from its title ("80,000,000,000 bytes"). */
async function rowBytes(page, row) {
  const title = await page.locator(`#breakdown tr[data-row="${row}"] td.num`).first().getAttribute('title');
  return Number(title.replace(/[^0-9]/g, ''));
}

async function pasteConfig(page, text) {
  if (!(await page.locator('#hf-box').evaluate((d) => d.open))) await page.click('#hf-box summary');
  await page.fill('#hf-config', text);
  await page.waitForSelector('#hf-box:not([data-pending])');
  await settled(page);
}

/** A fixture of tests/data/hf without its "_source" note, as test_arch_2026.cpp reads it. */
function fixture(name) {
  const object = JSON.parse(readFileSync(new URL(`../data/hf/${name}.json`, import.meta.url), 'utf8'));
  delete object._source;
  return JSON.stringify(object);
}

test('the feature panels own their fields: no adapter or engine field is left under "Other settings"', async () => {
  const page = await open();
  for (const name of ['train.adapter_type', 'train.base_dtype', 'infer.engine', 'infer.max_model_len'])
    assert.equal(await page.locator(`#feature-panels [name="${name}"]`).count(), 1, name);
  assert.equal(await page.locator('#more-fields [name^="train.adapter"], #more-fields [name^="infer.engine"]').count(), 0);
  // They belong to the form: a change is in the link. (The page opens on inference: training first.)
  await setAll(page, { mode: 'train' });
  await set(page, 'train.adapter_type', 'lora');
  await settled(page);
  assert.match(page.url(), /train\.adapter_type=lora/);
  assert.equal(await page.isVisible('#finetune-panel'), true);
  assert.equal(await page.isVisible('#serving-panel'), false);
});

test('QLoRA end to end: Llama-3.2-3B, q_proj,v_proj, r = 8, nf4 with double quantization', async () => {
  const page = await open();
  await setAll(page, { mode: 'train', 'model.preset': 'llama-3.2-3b', 'parallel.gpus': '1', 'parallel.zero_stage': '0',
    'gpu.preset': 'custom', 'gpu.custom_gb': '80' });
  // The buttons are the core's recipes (mp.recipes(), core/data/recipes.json), each citing its source.
  const buttons = await page.locator('#finetune-recipes button').evaluateAll((bs) => bs.map((b) => [b.dataset.recipe, b.textContent, b.title]));
  assert.deepEqual(buttons, mp.recipes().map((r) => [r.id, r.label, r.source]));
  await page.click('#finetune-recipes button[data-recipe="qlora"]');
  await settled(page);
  // The recipe's values are in the form.
  for (const [path, value] of Object.entries(mp.recipes().find((r) => r.id === 'qlora').values)) {
    const input = page.locator(`[name="${path}"]`);
    if ((await input.getAttribute('type')) === 'checkbox') assert.equal(await input.isChecked(), value, path);
    else assert.equal(await input.inputValue(), String(value), path);
  }
  assert.equal(await page.inputValue('[name="train.base_dtype"]'), 'nf4');
  assert.equal(await page.isChecked('[name="train.double_quant"]'), true);
  assert.equal(await page.isChecked('[name="train.paged_optimizer"]'), true);
  assert.equal(await page.inputValue('[name="train.optimizer"]'), 'adam_8bit');
  assert.equal(await page.inputValue('[name="train.recompute"]'), 'full');
  assert.equal(await page.inputValue('[name="train.adapter_rank"]'), '16');
  await setAll(page, { 'train.adapter_rank': '8', 'train.adapter_targets': 'q_proj,v_proj', 'train.recompute': 'none',
    'train.optimizer': 'adam', 'train.paged_optimizer': false, 'train.flash_attention': false });
  const value = async (key) => Number(await page.getAttribute(`#finetune-figures [data-finetune="${key}"]`, 'data-value'));
  // 28 layers × (q_proj 8·(3072 + 3072) + v_proj 8·(3072 + 1024)) = 28 × 81,920 = 2,293,760 (PEFT's count).
  assert.equal(await value('params_trainable'), 2293760);
  assert.equal(await value('adapter_params'), 2293760);
  assert.equal(await value('base_weight_bytes'), 2242370320);
  assert.equal(await value('adapter_bytes'), 2293760 * 4);  // fp32 adapters
  // The largest linear (MLP 3072 × 8192) dequantized to bf16: 2 × 25,165,824 B.
  assert.equal(await value('dequant_workspace'), 50331648);
  assert.match(await page.textContent('#finetune-summary'), /^QLoRA: rank 8 adapters on q_proj,v_proj over a frozen nf4 base, double quantization$/);
  assert.match(await page.textContent('#finetune-figures [data-finetune="params_trainable"]'), /2,293,760/);
  // The breakdown has the workspace's row, and its rows add up to the total shown.
  assert.equal(await rowBytes(page, 'dequant_workspace'), 50331648);
  const rows = await page.locator('#breakdown tbody tr:not(.total)').evaluateAll((trs) => trs.map((tr) => tr.dataset.row));
  let sum = 0;
  for (const row of rows) sum += await rowBytes(page, row);
  assert.equal(sum, await rowBytes(page, 'total'));
  assert.match(await page.textContent('#breakdown tr[data-row="dequant_workspace"] td.how'), /dequantized to bf16/);
  // The inverse answers are analyze()'s (computed in the worker) for the same configuration (FlashAttention
  // off as set above: the core's training default is on, which leaves room for a larger rank).
  const expected = mp.analyze({
    mode: 'train', model: { preset: 'llama-3.2-3b' }, parallel: { gpus: 1, zero_stage: 0 }, gpu: { memory_bytes: 80e9 },
    train: { adapter_type: 'lora', adapter_rank: 8, adapter_targets: 'q_proj,v_proj', base_dtype: 'nf4', double_quant: true, flash_attention: false } }).limits;
  // The core's answer for this run on one 80 GB GPU (with the default 287 MB CUDA context): the step's
  // peak, the start of backward with the logits' fp32 gradients, must fit (13,551 when only the
  // steady-state total was compared).
  assert.equal(expected.max_adapter_rank, 13114);
  const rank = page.locator('#finetune-figures [data-finetune="max_adapter_rank"]');
  if (await rank.count()) {  // absent only when the page's 2 s analysis limit stopped the worker (a slow machine)
    console.log('# max_adapter_rank shown by the page');
    assert.equal(await rank.textContent(), expected.max_adapter_rank.toLocaleString('en-US'));
    assert.match(await page.textContent('#finetune-figures [data-finetune="max_seq_len"]'), new RegExp(expected.max_seq_len.toLocaleString('en-US') + ' tokens'));
  } else {
    assert.match(await page.textContent('#analysis-status'), /stopped after 2 s/);
  }
});

test('vLLM on an A100 40GB with Llama-3-8B (vllm issue #12330): starts, 5,691 blocks = 91,056 tokens, 11.1 requests of 8,192', async () => {
  const page = await open();
  await setAll(page, { mode: 'infer', 'model.preset': 'llama-3-8b', 'parallel.gpus': '1', 'gpu.preset': 'custom' });
  // The log's total 39.4955 GiB is 42,408,000,000 B (test_serving.cpp); the overheads the log states.
  await setAll(page, { 'gpu.custom_gb': '42.408', 'infer.engine': 'vllm', 'infer.engine_version': '0.6', 'infer.max_model_len': '8192',
    'infer.gpu_memory_utilization_permille': '900', 'infer.weights_bytes': String(gib(14.9595)),
    'infer.non_torch_bytes': String(gib(0.10)), 'infer.activation_peak_bytes': String(gib(9.37)) });
  assert.equal(await page.isVisible('#serving-panel'), true);
  assert.equal(await page.textContent('#serving-verdict'), 'vLLM starts; 5,691 blocks = 91,056 tokens; 11.1 requests of 8,192 tokens at once.');
  assert.equal(await page.getAttribute('#serving-verdict', 'data-starts'), 'true');
  assert.match(await page.textContent('#serving-fraction'), /^vLLM: 90% of the GPU's memory .*\(--gpu-memory-utilization 0\.9\)$/);
  // The budget bar and its terms: 35.55 GiB budget, 11.12 GiB of KV cache (the log's figures).
  assert.match(await page.textContent('#serving-terms [data-term="budget_bytes"] strong'), /^Budget 35\.55 GiB$/);
  assert.match(await page.textContent('#serving-terms [data-term="kv_cache_bytes"] strong'), /^11\.12 GiB$/);
  assert.ok(await page.locator('#serving-bar .seg').count() >= 4);
  await page.click('#serving-terms [data-term="kv_cache_bytes"] summary');
  assert.match(await page.textContent('#serving-terms [data-term="kv_cache_bytes"] details p'), /num_blocks = available \/\/ page_size/);
  await page.waitForSelector('#serving-answers [data-serving="longest_max_model_len"]');
  assert.match(await page.textContent('#serving-answers [data-serving="longest_max_model_len"]'), /91,056 tokens/);
  assert.match(await page.textContent('#serving-answers [data-serving="max_concurrent_requests"]'), /: 11$/);
});

test('vLLM on an RTX 3090 with Llama-3.1-8B (vllm issue #10517): max_model_len 29,000 is refused, 23,648 starts', async () => {
  const page = await open();
  await setAll(page, { mode: 'infer', 'model.preset': 'llama-3.1-8b', 'parallel.gpus': '1', 'gpu.preset': 'custom' });
  const total = gib(23.58);
  await setAll(page, { 'gpu.custom_gb': String(total / 1e9), 'infer.engine': 'vllm', 'infer.engine_version': '0.6', 'infer.max_model_len': '29000',
    'infer.weights_bytes': String(gib(14.9888)), 'infer.activation_peak_bytes': String(gib(17.984) - gib(14.9888)),
    'infer.non_torch_bytes': String(gib(0.3503)) });
  assert.equal(await page.getAttribute('#serving-verdict', 'data-starts'), 'false');
  const text = await page.textContent('#serving-verdict');
  assert.match(text, /^vLLM does not start\. /);
  assert.match(text, /max_model_len \(29000\)/);
  assert.match(text, /1,478 blocks = 23,648 tokens/);
  assert.match(await page.textContent('#serving-verdict .longest'), /^Largest max_model_len that starts: 23,648 tokens\./);
  await page.click('#serving-verdict .longest button');
  await settled(page);
  assert.equal(await page.inputValue('[name="infer.max_model_len"]'), '23648');
  assert.equal(await page.getAttribute('#serving-verdict', 'data-starts'), 'true');
  assert.match(await page.textContent('#serving-verdict'), /^vLLM starts; 1,478 blocks = 23,648 tokens; 1\.0 requests of 23,648 tokens at once\.$/);
});

test('vLLM predicted from the settings: the profiling run, non-torch memory and CUDA-graph estimate as rows, the release stated', async () => {
  const page = await open();
  await setAll(page, { mode: 'infer', 'model.preset': 'qwen3-8b', 'parallel.gpus': '1', 'gpu.preset': 'custom' });
  // 80 GiB: vLLM's large-GPU defaults, 8,192 batched tokens and 1,024 sequences (get_batch_defaults).
  await setAll(page, { 'gpu.custom_gb': '85.89934592', 'infer.engine': 'vllm', 'infer.max_model_len': '8192' });
  const term = (key) => `#serving-terms [data-term="${key}"]`;
  await page.waitForSelector(`${term('activation_peak_bytes')} [data-row="profiling peak: forward at 8,192 tokens"]`);
  assert.match(await page.textContent(`${term('activation_peak_bytes')} [data-row="sampler at 1,024 sequences"]`), /^sampler at 1,024 sequences: \d/);
  assert.match(await page.textContent(`${term('non_torch_bytes')} .serving-rows`), /CUDA runtime and cuBLAS workspaces: /);
  assert.match(await page.textContent(`${term('cuda_graph_bytes')} .serving-rows`), /CUDA-graph estimate \(subtracted from vLLM 0\.21\): /);
  assert.match(await page.textContent(`${term('budget_bytes')} .source`), /release assumed: vLLM 0\.27 \(infer\.engine_version\)$/);
});

test('what other tools say: Llama-2-7B under ZeRO-3 on 8 GPUs, DeepSpeed prints 14.61 GB; collapsed and computed only when open; linkable', async () => {
  const page = await open();
  await setAll(page, { mode: 'train', 'model.preset': 'llama-2-7b', 'parallel.gpus': '8', 'parallel.zero_stage': '3' });
  assert.equal(await page.locator('#compare-tools').evaluate((d) => d.open), false);
  assert.equal(await page.locator('#compare-tools-table tbody tr').count(), 0);  // not computed while closed
  await page.click('#compare-tools > summary');
  const row = page.locator('#compare-tools-table tr[data-tool="deepspeed_zero3_doc"]');
  await row.waitFor();
  assert.equal(await row.locator('td.figure').textContent(), '14.61 GB');
  assert.ok((await row.locator('.reason').allTextContents()).some((r) => /18P\/N/.test(r)));
  assert.match(await page.textContent('#compare-tools-table tr[data-tool="megatron_theoretical_memory"]'), /cannot express: Megatron shards optimizer states only/);
  assert.match(page.url(), /\?open=compare#/);
  // The link opens the panel with the same figures.
  const again = await open(new URL(page.url()).pathname + new URL(page.url()).search + new URL(page.url()).hash);
  await again.locator('#compare-tools-table tr[data-tool="deepspeed_zero3_doc"]').waitFor();
  assert.equal(await again.locator('#compare-tools').evaluate((d) => d.open), true);
  assert.equal(await again.textContent('#compare-tools-table tr[data-tool="deepspeed_zero3_doc"] td.figure'), '14.61 GB');
});

test("modern models pasted as config.json: Qwen3-30B-A3B's 30,532,122,624 and DeepSeek-V3's 671,026,419,200 parameters; an unsupported key hides the old verdict", async () => {
  const page = await open();
  await pasteConfig(page, fixture('qwen3_30b_a3b_thinking_2507'));
  assert.equal(await page.getAttribute('#model-summary', 'data-params'), '30532122624');
  assert.match(await page.textContent('#model-summary'), /30,532,122,624\) parameters/);
  await pasteConfig(page, fixture('deepseek_r1'));  // DeepSeek-R1 is the DeepSeek-V3 architecture
  assert.equal(await page.getAttribute('#model-summary', 'data-params'), '671026419200');
  assert.match(await page.textContent('#model-summary'), /671,026,419,200\) parameters/);
  assert.equal(await page.isVisible('#verdict'), true);
  await pasteConfig(page, JSON.stringify({ model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_hidden_layers: 32,
    intermediate_size: 11008, vocab_size: 32000, kv_lora_rank: 512 }));
  assert.match(await page.textContent('#hf-errors'), /config\.json kv_lora_rank: is not supported yet for model_type llama/);
  assert.equal(await page.isVisible('#verdict'), false);
  assert.equal(await page.isVisible('#breakdown'), false);
  assert.equal(await page.isVisible('#feature-panels'), false);
  await page.fill('#hf-config', '');
  await page.waitForSelector('#hf-box:not([data-pending])');
  assert.equal(await page.isVisible('#verdict'), true);
});

test('preset search: the core ranks, Enter picks the top match, every preset shows its parameter count', async () => {
  const page = await open();
  const expectations = [
    ['llama3', 'llama-3-8b'], ['Meta-Llama-3-70B', 'llama-3-70b'], ['meta-llama/Llama-3.1-8B', 'llama-3.1-8b'],
    ['deepseek', 'deepseek-v3'], ['mistral 7b instruct', 'mistral-7b-v0.1'], ['qwen3 30b', 'qwen3-30b-a3b'],
  ];
  for (const [query, top] of expectations) {
    await page.fill('#preset-search', query);
    const values = await page.locator('#model-preset option').evaluateAll((o) => o.map((x) => x.value).filter(Boolean));
    assert.equal(values[0], top, query);
    assert.deepEqual(values.slice(0, mp.searchPresets(query).length), mp.searchPresets(query), query);
  }
  await page.fill('#preset-search', '');
  const texts = await page.locator('#model-preset option').evaluateAll((o) => o.filter((x) => x.value).map((x) => x.textContent));
  assert.equal(texts.length, mp.presets().length);
  for (const t of texts) assert.match(t, / — [\d.]+[KMBT] params$/, t);
  assert.ok(texts.includes('DeepSeek V3 — 671B params') || texts.some((t) => /^DeepSeek.V3.* — 671B params$/.test(t)));
  await page.fill('#preset-search', 'qwen3 30b');
  await page.press('#preset-search', 'Enter');
  await settled(page);
  assert.equal(await page.inputValue('#model-preset'), 'qwen3-30b-a3b');
  assert.equal(await page.getAttribute('#model-summary', 'data-params'), '30532122624');
});

test("the step's peak by phase: torchtitan named, its reserved figure and the range the core gives, the refusal of ZeRO-1", async () => {
  const page = await open();
  await setAll(page, { mode: 'train', 'model.preset': 'llama-3.1-8b', 'parallel.gpus': '8', 'parallel.zero_stage': '3',
    'train.micro_batch': '2', 'train.seq_len': '8192', 'train.framework': 'torchtitan', 'gpu.preset': 'custom', 'gpu.custom_gb': '96' });
  const expected = mp.estimate({ mode: 'train', model: { preset: 'llama-3.1-8b' }, parallel: { gpus: 8, zero_stage: 3 },
    gpu: { memory_bytes: 96e9 }, train: { micro_batch: 2, seq_len: 8192, framework: 'torchtitan' } });
  const ph = expected.details.phases;
  assert.equal(expected.details.framework.logs, 'reserved');
  // Every phase's bytes are the core's, the peak phase marked.
  for (const key of ['forward_end', 'loss_backward', 'layer_backward', 'optimizer_step'])
    assert.equal(Number(await page.getAttribute(`#step-phases tr[data-phase="${key}"] td`, 'data-value')), ph[key], key);
  assert.equal(await page.getAttribute(`#step-phases tr[data-phase="${ph.peak}"]`, 'class'), 'peak');
  // The line under the verdict: the allocated peak, the reserved range, and which one torchtitan prints.
  const line = await page.textContent('#step-peak');
  assert.match(line, /^Step peak: .* allocated \(start of backward/);
  assert.match(line, /reserved by PyTorch's caching allocator .* to .*\. torchtitan prints the reserved peak\.$/);
  assert.match(await page.textContent('#step-framework'), /torchtitan \(pytorch\/torchtitan at b5bcd76c/);
  assert.match(page.url(), /train\.framework=torchtitan/);
  // A layout torchtitan does not have is refused in the field's words.
  await setAll(page, { 'parallel.zero_stage': '1' });
  assert.match(await page.textContent('#errors'), /torchtitan/);
  // Inference: no step line.
  await setAll(page, { 'parallel.zero_stage': '3', mode: 'infer' });
  assert.equal(await page.isVisible('#step-peak'), false);
});
