// The Plan view in Debian's Chromium (web/plan-view.js): the core's planner runs in a worker when asked,
// its ranked layouts agree with mp.plan() for the same setup, and "apply" writes a layout to the form.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { servedChromium, watchedPage } from './harness.mjs';
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
    await page.locator('#plan-panel > summary').click();
    await page.fill('#plan-min-gpus', '8');
    await page.fill('#plan-max-gpus', '8');
    await page.fill('#plan-global-batch', '64');
    await page.click('#plan-run');
    await page.waitForSelector('#plan-panel[data-planned]');
    const texts = await page.locator('#plan-table tbody tr td:nth-child(3)').allTextContents();
    assert.equal(texts.length, 10);
    // The same request from JS, with the page's own configuration (the defaults of the form).
    const seq = Number(await page.inputValue('[name="train.seq_len"]'));
    const expected = mp.plan({ config: { mode: 'train', model: { preset: 'llama-3-8b' }, train: { seq_len: seq },
      gpu: { memory_bytes: mp.gpus().find((g) => g.id === 'h100-sxm-80gb').capacity_bytes } },
    gpu: 'h100-sxm-80gb', gpus: 8, global_batch: 64, top_n: 10 });
    assert.equal(texts[0], expected.top[0].text);
    assert.match(await page.textContent('#plan-status'), /layouts tried, [\d,]+ fit/);
    await page.locator('#plan-table tbody tr[data-rank="1"] button').click();
    await page.waitForFunction((tp) => document.querySelector('[name="parallel.tp"]').value === String(tp), expected.top[0].tp);
    assert.equal(await page.inputValue('[name="parallel.gpus"]'), '8');
    assert.equal(await page.inputValue('[name="train.micro_batch"]'), String(expected.top[0].micro_batch));
    await context.close();
  });
}

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
