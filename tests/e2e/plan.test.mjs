// The Plan view in Debian's Chromium (web/plan-view.js): the core's planner runs in a worker when asked,
// its ranked layouts agree with mp.plan() for the same setup, and "apply" writes a layout to the form.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runPlan, servedChromium, watchedPage } from './harness.mjs';
import { load } from '../../dist/memplan.js';

const mp = await load();
const env = servedChromium();

for (const [width, height] of [[1366, 900], [390, 844]]) {
  test(`Plan at ${width}px: Llama-3-8B training on 8 H100s, ranked as mp.plan() ranks it; apply sets the layout`, async () => {
    const context = await env.browser.newContext({ viewport: { width, height } });
    const { page, problems } = await watchedPage(context, env.server.origin);
    env.problems.push(problems);
    await page.goto(env.server.origin + '/index.html');
    await page.waitForSelector('#output[data-computed]');
    await page.locator('[name="mode"]').selectOption('train');
    await page.locator('#model-preset').selectOption('llama-3-8b');
    await page.locator('#gpu-preset').selectOption('h100-sxm-80gb');
    await page.waitForSelector('#output[data-computed]');
    await runPlan(page, 8, 64);
    const texts = await page.locator('#plan-table tbody tr td:nth-child(3)').allTextContents();
    assert.equal(texts.length, 10);
    // The same request from JS, with the page's own configuration (the defaults of the form).
    const seq = Number(await page.inputValue('[name="train.seq_len"]'));
    const expected = mp.plan({ config: { mode: 'train', model: { preset: 'llama-3-8b' }, train: { seq_len: seq },
      gpu: { memory_bytes: mp.gpus().find((g) => g.id === 'h100-sxm-80gb').capacity_bytes } },
    gpu: 'h100-sxm-80gb', gpus: 8, global_batch: 64, top_n: 10 });
    assert.equal(texts[0], expected.top[0].text);
    assert.match(await page.textContent('#plan-status'), /layouts tried, [\d,]+ fit/);
    // On H100 the step times are outside the model's calibration: the view shows the core's warning.
    assert.equal(expected.warnings.length, 1);
    assert.deepEqual(await page.locator('#plan-warnings li').allTextContents(), expected.warnings.map((w) => w.message));
    assert.match(await page.textContent('#plan-warnings'), /calibrated on Megatron-LM's A100 runs/);
    // One GPU count: one answer, the chart's one point in each panel and its row in the table beside it.
    assert.equal(await page.getAttribute('#plan-panel', 'data-stream'), 'done');
    assert.equal(await page.locator('#plan-chart .value-point').count(), 1);
    assert.equal(await page.locator('#plan-chart .memory-point').count(), 1);
    assert.equal(await page.locator('#plan-chart .capacity-line').count(), 1);
    assert.deepEqual(await page.locator('#plan-by-gpus tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.gpus)), ['8']);
    assert.equal(await page.textContent('#plan-by-gpus tbody tr td:nth-child(4)'), expected.by_gpus[0].best.text);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), true, 'no horizontal overflow');
    await page.locator('#plan-table tbody tr[data-rank="1"] button').click();
    await page.waitForFunction((tp) => document.querySelector('[name="parallel.tp"]').value === String(tp), expected.top[0].tp);
    assert.equal(await page.inputValue('[name="parallel.gpus"]'), '8');
    assert.equal(await page.inputValue('[name="train.micro_batch"]'), String(expected.top[0].micro_batch));
    await context.close();
  });
}

/** The page set to Llama-3-70B training on H100s with the Plan panel open over `min`–`max` GPUs. */
async function seventyB(width, height, min, max) {
  const context = await env.browser.newContext({ viewport: { width, height } });
  const { page, problems } = await watchedPage(context, env.server.origin);
  env.problems.push(problems);
  await page.goto(env.server.origin + '/index.html');
  await page.waitForSelector('#output[data-computed]');
  await page.locator('[name="mode"]').selectOption('train');
  await page.locator('#model-preset').selectOption('llama-3-70b');
  await page.locator('#gpu-preset').selectOption('h100-sxm-80gb');
  await page.waitForSelector('#output[data-computed]');
  await page.locator('#plan-panel > summary').click();
  await page.fill('#plan-min-gpus', String(min));
  await page.fill('#plan-max-gpus', String(max));
  await page.fill('#plan-global-batch', '256');
  return { context, page };
}

for (const [width, height] of [[1366, 900], [390, 844]]) {
  test(`Plan at ${width}px: Llama-3-70B over 64-1,024 H100s streams, the first rows before the last, one chart point per GPU count`, async () => {
    const { context, page } = await seventyB(width, height, 64, 1024);
    // Each state the panel passes through, as drawn (the whole plan takes well under a second here).
    await page.evaluate(() => {
      const panel = document.querySelector('#plan-panel');
      window.planStates = [];
      new MutationObserver(() => {
        if (panel.dataset.stream && panel.dataset.stream !== window.planStates.at(-1)?.stream)
          window.planStates.push({ stream: panel.dataset.stream, status: document.querySelector('#plan-status').textContent,
            counts: document.querySelectorAll('#plan-by-gpus tbody tr').length, points: document.querySelectorAll('#plan-chart .value-point').length,
            rows: document.querySelectorAll('#plan-table tbody tr').length });
      }).observe(panel, { attributes: true, attributeFilter: ['data-stream', 'data-partials'] });
    });
    await page.click('#plan-run');
    await page.waitForSelector('#plan-panel[data-stream="done"]', { timeout: 60000 });
    // A partial answer first (the core's ranking of the counts searched so far, their rows in the chart), then the final one.
    const states = await page.evaluate(() => window.planStates);
    assert.deepEqual(states.map((x) => x.stream), ['partial', 'done']);
    assert.match(states[0].status, /^Searching: 1 of 5 GPU counts so far \(up to 64 GPUs\)/);
    assert.deepEqual([states[0].counts, states[0].points], [1, 1]);
    assert.ok(states[0].rows >= 1);
    assert.deepEqual([states[1].counts, states[1].points], [5, 5]);
    assert.equal(await page.getAttribute('#plan-panel', 'data-partials'), '4');  // counts 64 … 512, then the last
    // The last answer is mp.plan()'s for the same request.
    const seq = Number(await page.inputValue('[name="train.seq_len"]'));
    const expected = mp.plan({ config: { mode: 'train', model: { preset: 'llama-3-70b' }, train: { seq_len: seq },
      gpu: { memory_bytes: mp.gpus().find((g) => g.id === 'h100-sxm-80gb').capacity_bytes } },
    gpu: 'h100-sxm-80gb', min_gpus: 64, max_gpus: 1024, global_batch: 256, top_n: 10 });
    assert.deepEqual(expected.gpu_counts, [64, 128, 256, 512, 1024]);
    assert.deepEqual(await page.locator('#plan-table tbody tr td:nth-child(3)').allTextContents(), expected.top.map((l) => l.text));
    // One point per GPU count searched in each panel, labelled with its count.
    const fitting = expected.by_gpus.filter((r) => r.best).map((r) => String(r.gpus));
    assert.equal(fitting.length, 5);
    assert.deepEqual(await page.locator('#plan-chart .value-point').evaluateAll((d) => d.map((n) => n.dataset.gpus)), fitting);
    assert.deepEqual(await page.locator('#plan-chart .memory-point').evaluateAll((d) => d.map((n) => n.dataset.gpus)), fitting);
    assert.deepEqual(await page.locator('#plan-by-gpus tbody tr td:nth-child(4)').allTextContents(), expected.by_gpus.map((r) => r.best.text));
    assert.equal(await page.textContent('#plan-chart-title'), 'The best layout\'s step time and memory per GPU at each GPU count searched');
    assert.ok((await page.locator('#plan-chart text.axis').allTextContents()).includes('GPUs (log scale)'));
    // Drawn inside the page at this width: the chart's box and the table within the viewport's width (on a
    // phone the chart keeps its labels' size and scrolls sideways inside its box).
    const box = await page.locator('#plan-chart-box').boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= width, `chart from ${box.x} to ${box.x + box.width}`);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), true, 'no horizontal overflow');
    const [first, all] = await page.evaluate(() => ['memplan:plan-first-rows', 'memplan:plan-all'].map((n) => performance.getEntriesByName(n)[0].duration));
    assert.ok(first < all, `first rows after ${first} ms, the whole plan after ${all} ms`);
    await context.close();
  });
}

test('Plan: changing the form while a plan streams stops it and says so', async () => {
  // DeepSeek-V3 at 32,768 tokens over 64-65,536 GPUs: 11 counts, over a second of search in the page.
  const context = await env.browser.newContext({ viewport: { width: 1366, height: 900 } });
  const { page, problems } = await watchedPage(context, env.server.origin);
  env.problems.push(problems);
  await page.goto(env.server.origin + '/index.html');
  await page.waitForSelector('#output[data-computed]');
  await page.locator('[name="mode"]').selectOption('train');
  await page.locator('#model-preset').selectOption('deepseek-v3');
  await page.locator('#gpu-preset').selectOption('h100-sxm-80gb');
  await page.fill('[name="train.seq_len"]', '32768');
  await page.waitForSelector('#output[data-computed]');
  await page.locator('#plan-panel > summary').click();
  await page.fill('#plan-min-gpus', '64');
  await page.fill('#plan-max-gpus', '65536');
  await page.fill('#plan-global-batch', '4096');
  await page.click('#plan-run');
  await page.waitForSelector('#plan-panel[data-stream="partial"]');
  await page.fill('[name="train.seq_len"]', '16384');
  await page.waitForSelector('#plan-panel[data-stream="stopped"]');
  assert.equal(await page.textContent('#plan-status'), 'The form changed: the plan was stopped; press Plan for this setup.');
  // Planning again runs to the end for the new setup.
  await page.click('#plan-run');
  await page.waitForSelector('#plan-panel[data-stream="done"]', { timeout: 60000 });
  await context.close();
});

test('Plan: a range the planner refuses is named by the form\'s labels and marks the field', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1366, height: 900 } });
  const { page, problems } = await watchedPage(context, env.server.origin);
  env.problems.push(problems);
  await page.goto(env.server.origin + '/index.html');
  await page.waitForSelector('#output[data-computed]');
  await page.locator('#plan-panel > summary').click();
  await page.fill('#plan-min-gpus', '100');
  await page.fill('#plan-max-gpus', '8');
  await page.click('#plan-run');
  await page.waitForSelector('#plan-panel[data-planned]');
  assert.equal(await page.textContent('#plan-status'), 'No plan: Fewest GPUs: must not exceed Most GPUs');
  assert.equal(await page.getAttribute('#plan-min-gpus', 'aria-invalid'), 'true');
  await page.fill('#plan-min-gpus', '8');
  await page.click('#plan-run');
  await page.waitForFunction(() => document.querySelector('#plan-panel').dataset.planned === '2');
  assert.equal(await page.getAttribute('#plan-min-gpus', 'aria-invalid'), null);
  await context.close();
});
