// Numbers as people type them and a page readable on a phone, in Debian's Chromium: the boxes open on
// the text a person would type (0.9, not 900 thousandths; 0.287 GB, the exact bytes kept), a batch of
// "8k" is read by the core and the value read shown beside the field, the suggestions' numbers are
// grouped; at 390×844 the sticky answer bar stays within 12 % of the screen (101 px) in each mode,
// the charts' labels are at least 11 px tall as drawn, and the Model and GPU lists show the whole
// chosen name at both sizes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runPlan, servedChromium, watchedPage } from './harness.mjs';
import { load } from '../../dist/memplan.js';

const mp = await load();
const env = servedChromium();
const H100 = () => mp.gpus().find((g) => g.id === 'h100-sxm-80gb');

async function open(hash = '', width = 1366, height = 900) {
  const context = await env.browser.newContext({ viewport: { width, height } });
  const { page, problems } = await watchedPage(context, env.server.origin);
  env.problems.push(problems);
  await page.goto(env.server.origin + '/index.html' + hash);
  await page.waitForSelector('#output[data-computed]');
  return { page, context };
}

const readout = (page, key) => page.textContent(`[id="parsed-${key}"]`);

/** Opens the disclosures around a control and types into it. */
async function type(page, name, text) {
  const input = page.locator(`[name="${name}"]`).first();
  await input.evaluate((n) => { for (let d = n.closest('details'); d; d = d.parentElement.closest('details')) d.open = true; });
  await input.fill(String(text));
  await page.waitForSelector('#output[data-computed]');
}

test('the utilization box opens on 0.9 and the overhead box on 0.287 GB, the overhead\'s exact bytes kept and read beside it', async () => {
  const { page, context } = await open('#infer.engine=vllm');
  const util = 'infer.gpu_memory_utilization_permille';
  assert.equal(await page.inputValue(`[name="${util}"]`), '0.9');
  assert.equal(await readout(page, util), '= 90%');
  const exact = mp.schema().fields.find((f) => f.path === 'overhead.misc_bytes').default;
  assert.equal(await page.inputValue('[name="overhead.misc_gb"]'), '0.287');
  assert.equal(await readout(page, 'overhead.misc_gb'), `= ${exact.toLocaleString('en-US')} bytes (0.27 GiB)`);
  // Another field edited: the rounded box still stands for the exact default (not 287,000,000 bytes),
  // and the link does not record it as changed.
  await type(page, 'infer.batch', '2');
  assert.equal(await readout(page, 'overhead.misc_gb'), `= ${exact.toLocaleString('en-US')} bytes (0.27 GiB)`);
  assert.doesNotMatch(page.url(), /misc|utilization/);
  // What is typed there is read as typed.
  await type(page, 'overhead.misc_gb', '0.5');
  assert.equal(await readout(page, 'overhead.misc_gb'), '= 500,000,000 bytes (0.47 GiB)');
  await context.close();
});

test('a batch of 8k is read by the core as 8,000 sequences, shown beside the field and used in the estimate', async () => {
  const { page, context } = await open();
  await type(page, 'infer.batch', '8k');
  assert.equal(await page.getAttribute('[name="infer.batch"]', 'aria-invalid'), null);
  assert.equal(await readout(page, 'infer.batch'), '= 8,000 sequences');
  assert.equal(await readout(page, 'infer.batch'), '= ' + mp.parseField('8k', 'infer.batch').text);
  const context_len = mp.parseField(await page.inputValue('[name="infer.context_len"]'), 'infer.context_len').value;
  const kv = mp.estimate({ mode: 'infer', model: { preset: 'llama-3.1-8b' }, infer: { batch: 8000, context_len }, gpu: { memory_bytes: H100().capacity_bytes } }).per_gpu.kv_cache;
  const shown = Number((await page.locator('#breakdown tr[data-row="kv_cache"] td.num').first().getAttribute('title')).replace(/[^0-9]/g, ''));
  assert.equal(shown, kv);
  await context.close();
});

test('the suggestions\' numbers are grouped as the form shows them: Context length: 32,768 → 16,384', async () => {
  const { page, context } = await open('#model.preset=llama-3.1-70b&parallel.gpus=2&parallel.tp=2&infer.context_len=32768&infer.batch=8');
  await page.waitForSelector('#suggestions button[data-field="infer.context_len"]');
  const labels = await page.locator('#suggestions li strong').allTextContents();
  assert.ok(labels.includes('Context length: 32,768 → 16,384'), labels.join(' | '));
  for (const label of labels) assert.doesNotMatch(label, /\d{4}/, label);
  // The whole list, the combined plan included: every number of four digits or more grouped.
  assert.doesNotMatch(await page.textContent('#suggestions'), /(?<![\d.,])\d{4}|undefined/);
  await context.close();
});

test('no single change fits: the fewest GPUs the core found is offered with everything it changes, and applying it fits', async () => {
  // Llama 3.1 8B trained on a 16 GB T4: LoRA and 8-bit Adam each still do not fit, no sequence fits; the
  // core's fewest GPUs (analysis.fewest) is the way out, offered with its tp and pp in the label.
  const { page, context } = await open('#mode=train&model.preset=llama-3.1-8b&gpu.preset=t4-16gb');
  const config = { mode: 'train', model: { preset: 'llama-3.1-8b' }, gpu: { memory_bytes: mp.gpus().find((g) => g.id === 't4-16gb').capacity_bytes, name: 't4-16gb' } };
  const a = mp.analyze(config);
  assert.ok(a.fewest && !a.suggestions.some((s) => s.fits), 'the case: a fewest layout, no single change that fits');
  const button = page.locator('#suggestions button[data-field="parallel.gpus"]');
  await button.waitFor();
  assert.equal(await button.getAttribute('data-value'), String(a.fewest.gpus));
  const label = await page.locator('#suggestions li', { has: page.locator('button[data-field="parallel.gpus"]') }).locator('strong').textContent();
  assert.equal(label, `GPUs: 1 → ${a.fewest.gpus}, Tensor parallel → ${a.fewest.tp}, Pipeline parallel → ${a.fewest.pp}`);
  assert.doesNotMatch(await page.textContent('#suggestions'), /No single change/);
  await button.click();
  await page.waitForFunction(() => document.querySelector('#verdict').dataset.fits === 'true');
  assert.equal(await page.inputValue('[name="parallel.tp"]'), String(a.fewest.tp));
  await context.close();
});

for (const [mode, hash] of [['inference', ''], ['training', '#mode=train'], ['serving with vLLM', '#infer.engine=vllm']]) {
  test(`at 390x844 the answer bar of ${mode} is at most 101 px tall, and Details shows the rest`, async () => {
    const { page, context } = await open(hash, 390, 844);
    const height = () => page.evaluate(() => document.getElementById('answer-bar').getBoundingClientRect().height);
    assert.ok(await height() <= 101, `the answer bar is ${await height()} px tall`);
    assert.equal(await page.isVisible('#verdict'), true);
    assert.equal(await page.isVisible('#copy-link'), true);
    assert.equal(await page.isVisible('#setup'), false);
    await page.click('#bar-more');
    assert.equal(await page.getAttribute('#bar-more', 'aria-expanded'), 'true');
    assert.equal(await page.isVisible('#setup'), true);
    await page.click('#verdict');  // a tap on the verdict folds it again
    assert.equal(await page.getAttribute('#bar-more', 'aria-expanded'), 'false');
    assert.ok(await height() <= 101);
    await context.close();
  });
}

/** The smallest label of a chart as drawn on the screen, in CSS px: its font size times the SVG's scale. */
const smallestLabel = (page, id) => page.evaluate((svgId) => {
  const sizes = [...document.getElementById(svgId).querySelectorAll('text')].map((t) => {
    const m = t.getScreenCTM();
    return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);  // rotated labels too
  });
  return sizes.length ? Math.min(...sizes) : 0;
}, id);

for (const [width, height] of [[390, 844], [1366, 900]]) {
  test(`at ${width}x${height} the Plan and GPU charts' labels are at least 11 px tall as drawn`, async () => {
    const { page, context } = await open('#mode=train&model.preset=llama-3-8b', width, height);
    const chart = await smallestLabel(page, 'chart');
    assert.ok(chart >= 10.99, `the GPU chart's smallest label is ${chart} px`);
    await runPlan(page, 8, 64);
    const plan = await smallestLabel(page, 'plan-chart');
    assert.ok(plan >= 10.99, `the Plan chart's smallest label is ${plan} px`);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), true, 'the page does not scroll sideways');
    await context.close();
  });

  test(`at ${width}x${height} the Model and GPU lists show the whole of a long chosen name`, async () => {
    const { page, context } = await open('', width, height);
    await page.locator('#model-preset').selectOption('kimi-k2.5');
    await page.locator('#gpu-preset').selectOption('gb200-186gb');
    await page.waitForSelector('#output[data-computed]');
    for (const id of ['model-preset', 'gpu-preset']) {
      const fit = await page.evaluate((selectId) => {
        const select = document.getElementById(selectId);
        const style = getComputedStyle(select);
        const context = document.createElement('canvas').getContext('2d');
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const text = context.measureText(select.selectedOptions[0].textContent).width;
        // One line of the select's font, measured: how many lines the list's box shows.
        const probe = document.body.appendChild(Object.assign(document.createElement('span'), { textContent: 'Hg' }));
        probe.style.font = context.font;
        const line = probe.getBoundingClientRect().height;
        probe.remove();
        const lines = Math.floor((select.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom) + 1) / line);
        const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;  // the arrow
        return { text, room, lines, scroll: select.scrollWidth, client: select.clientWidth };
      }, id);
      assert.ok(fit.scroll <= fit.client, `#${id} scrolls: ${fit.scroll} > ${fit.client}`);
      assert.ok(fit.text <= fit.room * fit.lines, `#${id} shows ${fit.lines} line(s) of ${Math.round(fit.room)} px for a name of ${Math.round(fit.text)} px`);
    }
    await context.close();
  });
}
