// Measures the Plan view's streaming in headless Chromium served from localhost: Llama-3-70B training
// (the page's defaults otherwise, global batch 256) over 64-1,024 H100s, the time from the Plan click to
// the first ranked rows on screen (the page's measure memplan:plan-first-rows) and to the whole plan
// drawn (memplan:plan-all), median of several plans on one loaded page, with the machine's load average.
//   node scripts/measure-plan-stream.mjs [runs [preset min max global_batch seq_len]]   (after scripts/build-web.sh)
//   e.g. node scripts/measure-plan-stream.mjs 5 deepseek-v3 64 65536 4096 32768
import { cpus, loadavg } from 'node:os';
import { launch, serve } from '../tests/e2e/harness.mjs';

const RUNS = Number(process.argv[2] || 5);
const [PRESET, MIN, MAX, BATCH, SEQ] = process.argv.length > 3 ? process.argv.slice(3) : ['llama-3-70b', '64', '1024', '256', ''];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const server = await serve();
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await page.goto(server.origin + '/index.html');
  await page.waitForSelector('#output[data-computed]');
  await page.locator('[name="mode"]').selectOption('train');
  await page.locator('#model-preset').selectOption(PRESET);
  await page.locator('#gpu-preset').selectOption('h100-sxm-80gb');
  if (SEQ) await page.fill('[name="train.seq_len"]', SEQ);
  await page.waitForSelector('#output[data-computed]');
  await page.locator('#plan-panel > summary').click();
  await page.fill('#plan-min-gpus', MIN);
  await page.fill('#plan-max-gpus', MAX);
  await page.fill('#plan-global-batch', BATCH);
  const first = [];
  const all = [];
  const load = [loadavg()[0]];
  for (let i = 0; i < RUNS; i++) {
    await page.evaluate(() => performance.clearMeasures());
    const planned = Number((await page.getAttribute('#plan-panel', 'data-planned')) || 0);
    await page.click('#plan-run');
    await page.waitForFunction((n) => Number(document.querySelector('#plan-panel').dataset.planned || 0) > n, planned, { timeout: 120000 });
    const [f, a] = await page.evaluate(() => ['memplan:plan-first-rows', 'memplan:plan-all'].map((n) => performance.getEntriesByName(n)[0]?.duration));
    first.push(f);
    all.push(a);
    load.push(loadavg()[0]);
  }
  const fmt = (xs) => xs.map((x) => Math.round(x)).join(', ');
  const seq = await page.inputValue('[name="train.seq_len"]');
  console.log(`${PRESET} at ${seq} tokens, global batch ${BATCH}, ${MIN}-${MAX} H100s, ${RUNS} plans on one page (${cpus().length} CPUs, 1-minute load ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)})`);
  console.log(`first rows: median ${Math.round(median(first))} ms (${fmt(first)})`);
  console.log(`whole plan: median ${Math.round(median(all))} ms (${fmt(all)})`);
} finally {
  await browser.close();
  server.stop();
}
