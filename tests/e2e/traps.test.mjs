// The traps a new user fell into on the page, each checked where it happened: numbers read as each
// field means them and shown beside the field, errors in the form's words on the field the user
// changed, the model summary never showing an earlier answer's figures, the setup named above the
// verdict, "Find a model" picking the best match, and "Skip to the answer" moving the focus there.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, serve, watchedPage } from './harness.mjs';
import { load } from '../../dist/memplan.js';

const mp = await load();
let server, browser;
const allProblems = [];
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); server?.stop(); });

async function open(path = '/index.html', width = 1366, height = 900) {
  const context = await browser.newContext({ viewport: { width, height } });
  const { page, problems } = await watchedPage(context, server.origin);
  allProblems.push(problems);
  await page.goto(server.origin + path);
  await page.waitForSelector('#output[data-computed]');
  return { page, context };
}

const settled = (page) => page.waitForSelector('#output[data-computed]');
const readout = (page, key) => page.textContent(`[id="parsed-${key}"]`);
const bytesOf = async (page, row) => Number((await page.locator(`#breakdown tr[data-row="${row}"] td.num`).first().getAttribute('title')).replace(/[^0-9]/g, ''));
const H100 = () => mp.gpus().find((g) => g.id === 'h100-sxm-80gb');

/** Opens the disclosures around a control and types into it. */
async function type(page, name, text) {
  const input = page.locator(`[name="${name}"]`).first();
  await input.evaluate((n) => { for (let d = n.closest('details'); d; d = d.parentElement.closest('details')) d.open = true; });
  await input.fill(String(text));
  await settled(page);
}

test('token counts: 8K is 8,192 as vLLM reads it, 8k is 8,000 with a note; the value read is shown under the field', async () => {
  const { page, context } = await open();
  await type(page, 'infer.context_len', '8K');
  assert.equal(await readout(page, 'infer.context_len'), '= 8,192 tokens');
  const base = { mode: 'infer', model: { preset: 'llama-3.1-8b' }, gpu: { memory_bytes: H100().capacity_bytes } };
  assert.equal(await bytesOf(page, 'kv_cache'), mp.estimate({ ...base, infer: { context_len: 8192 } }).per_gpu.kv_cache);
  await type(page, 'infer.context_len', '128K');
  assert.equal(await readout(page, 'infer.context_len'), '= 131,072 tokens');
  await type(page, 'infer.context_len', '8k');
  assert.equal(await readout(page, 'infer.context_len'), '= 8,000 tokens (k is 1,000, as vLLM reads it; 8K is 8,192)');
  await type(page, 'infer.context_len', '32,768');
  assert.equal(await readout(page, 'infer.context_len'), '= 32,768 tokens');
  // The model summary agrees with the breakdown after a number with commas.
  assert.match(await page.textContent('#model-summary'), / for 1 × 32,768 tokens /);
  assert.equal(await page.getAttribute('#model-summary', 'data-kv-bytes'), String(await bytesOf(page, 'kv_cache')));
  await context.close();
});

test('GPU memory utilization takes 0.9, 90% or 0.95; a bare 95 is refused on that field, not read as 9.5 %', async () => {
  const { page, context } = await open();
  await page.selectOption('[name="infer.engine"]', 'vllm');
  await settled(page);
  for (const [text, shown] of [['0.9', '= 90%'], ['90%', '= 90%'], ['0.95', '= 95%']]) {
    await type(page, 'infer.gpu_memory_utilization_permille', text);
    assert.equal(await page.isVisible('#errors'), false, text);
    assert.equal(await readout(page, 'infer.gpu_memory_utilization_permille'), shown);
  }
  assert.match(await page.textContent('#serving-verdict'), /^vLLM starts/);
  await type(page, 'infer.gpu_memory_utilization_permille', '95');
  assert.equal(await page.getAttribute('[name="infer.gpu_memory_utilization_permille"]', 'aria-invalid'), 'true');
  assert.equal(await readout(page, 'infer.gpu_memory_utilization_permille'), 'GPU memory utilization cannot be 95: write 0.95 or 95% (950 in thousandths)');
  await context.close();
});

test('a GPU size refuses 1.5M (a count, not a size); counts such as GPUs say what they are', async () => {
  const { page, context } = await open();
  await page.selectOption('#gpu-preset', 'custom');
  await settled(page);
  await type(page, 'gpu.custom_gb', '1.5M');
  assert.equal(await page.getAttribute('[name="gpu.custom_gb"]', 'aria-invalid'), 'true');
  assert.match(await readout(page, 'gpu.custom_gb'), /^GPU memory \(GB\) must be a size such as 80, 80GB or 74\.5GiB .*K, M, B and T are counts, not sizes$/);
  await type(page, 'gpu.custom_gb', '48');
  assert.equal(await page.getAttribute('[name="gpu.custom_gb"]', 'aria-invalid'), null);
  assert.equal(await readout(page, 'gpu.custom_gb'), '= 48,000,000,000 bytes (44.70 GiB)');
  await type(page, 'parallel.gpus', '7B');
  assert.equal(await readout(page, 'parallel.gpus'), 'GPUs must be a whole number of GPUs from 1 to 1,048,576 (k = 1,000, M = 1,000,000)');
  assert.equal(await page.textContent('#model-summary'), '');  // no figures of the answer before the error
  await context.close();
});

test('tensor parallel 3 on one GPU: the message is on the tensor-parallel field, in the form\'s words', async () => {
  const { page, context } = await open();
  await type(page, 'parallel.tp', '3');
  assert.equal(await page.getAttribute('[name="parallel.tp"]', 'aria-invalid'), 'true');
  assert.equal(await page.getAttribute('[name="parallel.gpus"]', 'aria-invalid'), null);
  const text = await readout(page, 'parallel.tp');
  assert.equal(text, 'GPUs (1) must be a multiple of Tensor parallel × Pipeline parallel (3)');
  assert.ok(!(await page.textContent('#verdict')).includes('parallel.tp'));
  await context.close();
});

test('the verdict names the setup; a parameter count written 70b is read as 70 billion', async () => {
  const { page, context } = await open();
  const h100 = H100();
  assert.equal(await page.textContent('#setup'), `Llama 3.1 8B · inference · 1 × 8,192 tokens · 1× ${h100.name} (${h100.memory_text})`);
  await type(page, 'parallel.gpus', '2');
  await type(page, 'parallel.tp', '2');
  await type(page, 'infer.batch', '8');
  assert.equal(await page.textContent('#setup'), `Llama 3.1 8B · inference · 8 × 8,192 tokens · 2× ${h100.name} (${h100.memory_text}), tp 2`);
  // Two contexts, one answer each: the verdict is for the context length; the engine reserves for its max model length.
  await page.selectOption('[name="infer.engine"]', 'vllm');
  await settled(page);
  await type(page, 'infer.max_model_len', '32K');
  assert.equal(await page.textContent('#setup'), `Llama 3.1 8B · inference · 8 × 8,192 tokens · 2× ${h100.name} (${h100.memory_text}), tp 2, ` +
    'engine vllm reserving for 32,768 tokens (max model length)');
  await type(page, 'model.params', '70b');
  assert.equal(await page.isVisible('#errors'), false);
  assert.equal(await page.getAttribute('#model-summary', 'data-params'), '70000000000');
  assert.equal(await readout(page, 'model.params'), '= 70,000,000,000 parameters');
  await context.close();
});

test('"Find a model" picks the best match and says so; "Skip to the answer" moves the focus to the verdict', async () => {
  const { page, context } = await open();
  await page.fill('#preset-search', 'qwen3 32b');
  await settled(page);
  const best = mp.searchPresets('qwen3 32b')[0];
  assert.equal(await page.inputValue('#model-preset'), best);
  const name = mp.presets().find((p) => p.id === best).name;
  assert.match(await page.textContent('#preset-picked'), new RegExp(`^Picked ${name.replace(/[.()]/g, '\\$&')}, the best of \\d+ match`));
  assert.match(await page.textContent('#setup'), new RegExp('^' + name.replace(/[.()]/g, '\\$&') + ' · '));
  const hash = new URL(page.url()).hash;
  await page.focus('a.skip');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'verdict');
  assert.equal(new URL(page.url()).hash, hash);  // the link's state stays
  await context.close();
});

test('"Find a GPU" picks the best match and says so, as "Find a model" does', async () => {
  const { page, context } = await open();
  for (const query of ['4090', 'mi300', 'rtx 6000 ada']) {
    await page.fill('#gpu-search', query);
    await settled(page);
    const best = mp.searchGpus(query)[0];
    assert.equal(await page.inputValue('#gpu-preset'), best, query);
    const name = mp.gpus().find((g) => g.id === best).name;
    assert.match(await page.textContent('#gpu-picked'), new RegExp(`^Picked ${name.replace(/[.()]/g, '\\$&')}, the best of \\d+ match`), query);
    // The answer follows the GPU picked: the setup line names it.
    assert.ok((await page.textContent('#setup')).includes(name), query);
  }
  const before = await page.inputValue('#gpu-preset');
  await page.fill('#gpu-search', 'no such card');
  await settled(page);
  assert.equal(await page.inputValue('#gpu-preset'), before);
  assert.match(await page.textContent('#gpu-picked'), /^No GPU in the catalogue matches “no such card”; the GPU stays /);
  await context.close();
});

test('pins are in the shared link and come back with it; each is labelled by its setup', async () => {
  const { page, context } = await open();
  await page.click('#pin');
  await settled(page);
  // "Pinned (1). …" stands apart from the Export disclosure before it, not run into it.
  const exportBox = await page.locator('.actions details.export summary').boundingBox();
  const saidBox = await page.locator('#copied').boundingBox();
  assert.ok(saidBox.y >= exportBox.y + exportBox.height || saidBox.x >= exportBox.x + exportBox.width + 8, JSON.stringify([exportBox, saidBox]));
  await type(page, 'infer.batch', '4');
  const link = page.url();
  assert.match(new URL(link).hash, /(^#|&)pin=/);
  const again = await context.newPage();
  await again.goto(link);
  await again.waitForSelector('#output[data-computed]');
  assert.equal(await again.isVisible('#compare'), true);
  const labels = await again.locator('#compare-bars .compare-row p').allTextContents();
  assert.equal(labels.length, 2);
  // Each pin is labelled by what differs, with its whole setup under it.
  assert.match(labels[0], /^pin 1: Batch 1 — [\d.]+ GiB needed per GPU, fits/);
  assert.match(labels[1], /^current: Batch 4 — [\d.]+ GiB needed per GPU, fits/);
  assert.deepEqual((await again.locator('#compare-bars .setup-of').allTextContents()).map((t) => t.split(' · ').slice(0, 3).join(' · ')),
    ['Llama 3.1 8B · inference · 1 × 8,192 tokens', 'Llama 3.1 8B · inference · 4 × 8,192 tokens']);
  assert.equal(await again.isVisible('#notice'), false);  // nothing in the link was refused
  await context.close();
});

test('on a phone the first input is in the first viewport, below the verdict and the breakdown', async () => {
  const { page, context } = await open('/index.html', 390, 844);
  const first = await page.locator('#preset-search').boundingBox();
  const verdict = await page.locator('#verdict').boundingBox();
  assert.ok(verdict.y + verdict.height <= 844, `verdict ends at ${verdict.y + verdict.height}`);
  assert.ok(first.y + first.height <= 844, `the first input ends at ${first.y + first.height} px`);
  // The parts of 0 bytes are left out there; the total is the laptop's.
  assert.equal(await page.locator('#breakdown tr.zero').first().isVisible(), false);
  await context.close();
});

test('inference activations assume a chunked prefill and say so beside the row; its buttons reach the chunk and the switch', async () => {
  // Llama 3.1 70B on 2 × H100, 8 × 32,768 tokens: vLLM prefills 8,192 tokens a step (0.906 GiB), not the
  // whole 262,144 tokens in one pass (29 GiB).
  const { page, context } = await open('/index.html#model.preset=llama-3.1-70b&parallel.gpus=2&parallel.tp=2&infer.batch=8&infer.context_len=32768');
  const config = { mode: 'infer', model: { preset: 'llama-3.1-70b' }, parallel: { gpus: 2, tp: 2 }, infer: { batch: 8, context_len: 32768 },
    gpu: { memory_bytes: H100().capacity_bytes } };
  const chunked = mp.estimate(config);
  assert.equal(chunked.per_gpu.activations, 973078528);
  assert.equal(await bytesOf(page, 'activations'), 973078528);
  const assumed = '#breakdown tr[data-row="activations"] .assumed';
  assert.equal(await page.textContent(assumed), 'Assumes prefill in chunks of 8,192 tokens; change the chunk or prefill in one pass');
  await page.click(`${assumed} button[data-focus="infer.max_num_batched_tokens"]`);
  assert.equal(await page.evaluate(() => document.activeElement.name), 'infer.max_num_batched_tokens');
  await page.click(`${assumed} button[data-focus="infer.chunked_prefill"]`);
  assert.equal(await page.evaluate(() => document.activeElement.name), 'infer.chunked_prefill');
  await page.keyboard.press('Space');  // the switch, off: the whole batch in one pass
  await settled(page);
  const whole = mp.estimate({ ...config, infer: { ...config.infer, chunked_prefill: false } });
  assert.equal(whole.per_gpu.activations, 29 * 2 ** 30);
  assert.equal(await bytesOf(page, 'activations'), whole.per_gpu.activations);
  assert.equal(await page.textContent(assumed), 'Assumes a prefill of 8 × 32,768 tokens in one pass; prefill in chunks');
  assert.match(page.url(), /&infer\.chunked_prefill=0$/);  // in the link, and back with it
  const reopened = await context.newPage();
  await reopened.goto(page.url());
  await reopened.waitForSelector('#output[data-computed]');
  assert.equal(await reopened.textContent(assumed), 'Assumes a prefill of 8 × 32,768 tokens in one pass; prefill in chunks');
  assert.equal(await bytesOf(reopened, 'activations'), whole.per_gpu.activations);
  await context.close();
});

test('no page had a console error, a failed request or a request to another origin', () => {
  assert.deepEqual(allProblems.flat(), []);
});
