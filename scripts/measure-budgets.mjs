// Measures the page budgets: the whole page's weight (every file it loads, gzipped at level 9) and
// the time from navigation to the first result (the page's performance mark "memplan:first-result")
// in headless Chromium served from localhost, median of several cold loads, with the page's own first
// contentful paint beside it (the result's delay after the page first paints), and the time of the core's
// own first answer (the mark "memplan:first-estimate": without a link the first result is the answer
// computed at build time, drawn before the WASM has loaded, web/first-result.js); then, on one loaded page,
// the time from an input event to the redrawn total and to the redrawn derived views (the page's
// measures memplan:input-to-total and memplan:input-to-views) while a context length is typed.
//   node scripts/measure-budgets.mjs           print the figures
//   node scripts/measure-budgets.mjs --check   exit 1 when the weight budget is exceeded (time is reported only)
//   node scripts/measure-budgets.mjs --write   also rewrite the figures in docs/budgets.md
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { gzipSync } from 'node:zlib';
import { DIST, launch, serve } from '../tests/e2e/harness.mjs';

// The enforced weight budget. The goal is 150 KiB; the WebAssembly core outgrew it when per-layer
// architectures, serving engines, fine-tuning and the other tools' reproductions landed (the WASM
// went from 216 KB to about 516 KB raw, 188 KB gzipped; docs/budgets.md). The check holds the line at
// 230 KiB until the core is made smaller again; 150 KiB stays the goal that docs/budgets.md reports.
const BUDGET_GZIP_BYTES = 230 * 1024;
const GOAL_GZIP_BYTES = 150 * 1024;
const BUDGET_FIRST_RESULT_MS = 300;
const RUNS = 9;

const gz = (buffer) => gzipSync(buffer, { level: 9 }).length;

const server = await serve();
const browser = await launch();
const loaded = new Map();
const times = [];
const afterPaint = [];
const coreFirst = [];
let typing = { total: [], views: [] };
try {
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext();  // cold cache every run
    const page = await context.newPage();
    const bodies = [];
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.origin !== server.origin) return;
      bodies.push(response.body().then((body) => loaded.set(url.pathname, body.length)));
    });
    await page.goto(server.origin + '/index.html');
    await page.waitForFunction(() => performance.getEntriesByName('memplan:first-result').length > 0);
    const [result, paint] = await page.evaluate(() => [performance.getEntriesByName('memplan:first-result')[0].startTime,
      (performance.getEntriesByName('first-contentful-paint')[0] || { startTime: NaN }).startTime]);
    times.push(result);
    if (Number.isFinite(paint)) afterPaint.push(result - paint);
    // Every file counts, the analysis worker's too (it runs app.js again): wait for the derived views.
    await page.waitForSelector('#output[data-computed]');
    coreFirst.push(await page.evaluate(() => performance.getEntriesByName('memplan:first-estimate')[0].startTime));
    await Promise.all(bodies);
    await context.close();
  }
  // Typing: twelve context lengths typed key by key (30 ms apart), each settling before the next.
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const page = await context.newPage();
  await page.goto(server.origin + '/index.html');
  await page.waitForSelector('#output[data-computed]');
  const field = page.locator('[name="infer.context_len"]');
  for (const value of ['4096', '8192', '16384', '32768', '2048', '1000', '65536', '12000', '24000', '4000', '9000', '3000']) {
    await field.fill('');
    await field.focus();
    await page.keyboard.type(value, { delay: 30 });
    await page.waitForTimeout(400);
  }
  typing = await page.evaluate(() => ({
    total: performance.getEntriesByName('memplan:input-to-total').map((e) => e.duration),
    views: performance.getEntriesByName('memplan:input-to-views').map((e) => e.duration),
  }));
  await context.close();
} finally {
  await browser.close();
  server.stop();
}
const middle = (list) => { const sorted = [...list].sort((a, b) => a - b); return sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN; };
const paintMedian = middle(afterPaint);
const coreMedian = middle(coreFirst);
const totalMedian = middle(typing.total);
const viewsMedian = middle(typing.views);

const files = [];
for (const pathname of [...loaded.keys()].sort()) {
  const raw = await readFile(DIST + pathname.replace(/^\//, ''));
  files.push({ file: pathname.slice(1), raw: raw.length, gzip: gz(raw) });
}
const total = files.reduce((s, f) => s + f.gzip, 0);
const rawTotal = files.reduce((s, f) => s + f.raw, 0);
const single = await readFile(DIST + 'memplan.html');
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const kb = (n) => (n / 1024).toFixed(1);

console.log('file                      raw B    gzip B');
for (const f of files) console.log(`${f.file.padEnd(24)} ${String(f.raw).padStart(7)} ${String(f.gzip).padStart(9)}`);
console.log(`page total: ${kb(total)} KiB gzipped (${kb(rawTotal)} KiB raw), budget ${kb(BUDGET_GZIP_BYTES)} KiB`);
console.log(`single-file memplan.html: ${kb(gz(single))} KiB gzipped (${kb(single.length)} KiB raw)`);
console.log(`first result: median ${median.toFixed(0)} ms of ${RUNS} cold loads (min ${times[0].toFixed(0)}, max ${times[times.length - 1].toFixed(0)}), budget ${BUDGET_FIRST_RESULT_MS} ms`);
console.log(`first result after the page's first contentful paint: median ${paintMedian.toFixed(0)} ms`);
console.log(`the core's own first answer (WASM loaded, form built): median ${coreMedian.toFixed(0)} ms after navigation`);
console.log(`input to total: median ${totalMedian.toFixed(1)} ms of ${typing.total.length} inputs; input to derived views: median ${viewsMedian.toFixed(1)} ms of ${typing.views.length}`);

if (process.argv.includes('--write')) {
  const path = new URL('../docs/budgets.md', import.meta.url);
  const doc = await readFile(path, 'utf8');
  const table = ['| file | raw bytes | gzipped bytes |', '|---|---:|---:|',
    ...files.map((f) => `| ${f.file} | ${f.raw} | ${f.gzip} |`),
    `| **page total** | ${rawTotal} | **${total} (${kb(total)} KiB)** |`].join('\n');
  const figures = `<!-- measured:begin -->\nMeasured on ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, ` +
    `headless Debian Chromium, \`npm run measure\`:\n\n${table}\n\n` +
    `- Whole page: **${kb(total)} KiB gzipped** (enforced budget ${kb(BUDGET_GZIP_BYTES)} KiB; goal ${kb(GOAL_GZIP_BYTES)} KiB, not met).\n` +
    `- Single-file build \`memplan.html\`: ${kb(gz(single))} KiB gzipped.\n` +
    `- First result visible: **median ${median.toFixed(0)} ms** after navigation over ${RUNS} cold loads ` +
    `(min ${times[0].toFixed(0)} ms, max ${times[times.length - 1].toFixed(0)} ms; budget 300 ms); ` +
    `median ${paintMedian.toFixed(0)} ms after the page's first contentful paint (goal 150 ms); the core's own first answer ` +
    `(WASM loaded, form built) median ${coreMedian.toFixed(0)} ms after navigation.\n` +
    `- Typing a context length (12 values key by key): input to redrawn total median **${totalMedian.toFixed(1)} ms** over ` +
    `${typing.total.length} inputs (goal one frame, 16 ms); input to redrawn derived views median **${viewsMedian.toFixed(1)} ms** over ` +
    `${typing.views.length} (goal 50 ms).\n<!-- measured:end -->`;
  await writeFile(path, doc.replace(/<!-- measured:begin -->[\s\S]*<!-- measured:end -->/, figures));
  console.log('wrote docs/budgets.md');
}

if (process.argv.includes('--check')) {
  let ok = true;
  if (total > BUDGET_GZIP_BYTES) { console.error(`over budget: page ${total} B gzipped > ${BUDGET_GZIP_BYTES} B`); ok = false; }
  // Time is a benchmark figure, recorded in docs/budgets.md, not a pass/fail test: a loaded CI
  // machine must not fail the build. Only the deterministic weight budget fails --check.
  if (median > BUDGET_FIRST_RESULT_MS) console.warn(`note: first result ${median.toFixed(0)} ms > ${BUDGET_FIRST_RESULT_MS} ms on this (possibly busy) machine`);
  if (!ok) process.exit(1);
}
