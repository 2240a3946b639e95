// Measures the page budgets: the whole page's weight (every file it loads, gzipped at level 9) and
// the time from navigation to the first result (the page's performance mark "memplan:first-result")
// in headless Chromium served from localhost, median of several cold loads, with the page's own first
// contentful paint beside it (the result's delay after the page first paints), and the time of the core's
// own first answer (the mark "memplan:first-estimate": without a link the first result is the answer
// computed at build time, drawn before the WASM has loaded, web/first-result.js); then, on one loaded page,
// the time from an input event to the redrawn total and to the redrawn derived views (the page's
// measures memplan:input-to-total and memplan:input-to-views) while a context length is typed; and a
// shared link's first answer (a link that sets fields: no answer computed at build time covers it) beside
// the default page's first answer and a blank page's first paint, the three loaded cold in turn in each run.
//   node scripts/measure-budgets.mjs           print the figures
//   node scripts/measure-budgets.mjs --link    only the shared link's figures
//   node scripts/measure-budgets.mjs --check   exit 1 when the weight budget is exceeded (time is reported only)
//   node scripts/measure-budgets.mjs --write   also rewrite the figures in docs/budgets.md
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { gzipSync } from 'node:zlib';
import { DIST, launch, serve } from '../tests/e2e/harness.mjs';

// The enforced weight budget. The goal is 150 KiB; the WebAssembly core outgrew it when per-layer
// architectures, serving engines, fine-tuning and the other tools' reproductions landed (the WASM
// went from 216 KB to about 516 KB raw, 188 KB gzipped; docs/budgets.md). The check holds the line at
// 230 KiB until the layout planner and step-time model, the per-field number reading, vLLM's predicted
// start-up terms, the Hub import's families and the training phases landed (247.1 KiB measured,
// docs/budgets.md "This round's growth"), and at 275 KiB since the Hub reader (its bindings and web/hub.js),
// the chunked-prefill rows, the streamed plan with its chart and DeepSeek-V3.2 landed (271.1 KiB measured,
// docs/budgets.md "The Hub reader's growth"), and at 280 KiB since train.framework, the reserved range,
// torchtitan's selective checkpointing and the step view (278.9 KiB measured, docs/budgets.md "The
// training frameworks' growth"), and at 284 KiB since the step-time caveats, Qwen3-VL's vision tower and
// the shared link's early compile (280.8 KiB measured, docs/budgets.md "The step-time caveats' growth"),
// and at 310 KiB since the late-2026 families, their towers and the ModelOpt / compressed-tensors readers
// (308.1 KiB measured, docs/budgets.md "The late-2026 families' growth"), and at 318 KiB since the day-one
// path, vLLM's scheduler defaults, decode context parallelism and the engine's verdict (316.1 KiB measured,
// docs/budgets.md "The day-one path's and the serving rules' growth"), and at 322 KiB since the release
// lines, the MXFP4 layout, required sizes, paged optimizer views and framework defaults (321.2 KiB measured,
// docs/budgets.md "Release lines, required sizes and framework defaults"), until the core is made smaller
// again; 150 KiB stays the goal that docs/budgets.md reports.
const BUDGET_GZIP_BYTES = 322 * 1024;
const GOAL_GZIP_BYTES = 150 * 1024;
const BUDGET_FIRST_RESULT_MS = 300;
const RUNS = 9;
// The embedded element <memplan-estimate>: its script and the estimate-only module it loads
// (memplan-lite.js, memplan-api.js, the factory and .wasm) at most 130 KiB gzipped; its first answer
// within 100 ms of the element's module being evaluated, on dist/estimate-example.html (three elements),
// beside the same page without the elements as the baseline, median of ELEMENT_RUNS cold loads.
// The goal is 130 KiB; the estimate-only module alone is about 152 KiB gzipped (docs/budgets.md, "The
// element's weight"), so the check holds the line at 215 KiB (180 KiB until the training frameworks'
// growth, 185 KiB until the late-2026 families' growth, 208 KiB until the day-one path's and the serving
// rules' growth, 212 KiB until the release lines and framework defaults, 215 KiB until the Emscripten
// factories were minified, docs/budgets.md "Where the bytes are") and docs/budgets.md reports the goal.
// The first tripwire moved down: 214 KiB.
const ELEMENT_GOAL_GZIP_BYTES = 130 * 1024;
const ELEMENT_BUDGET_GZIP_BYTES = 214 * 1024;
const ELEMENT_GOAL_FIRST_ANSWER_MS = 100;
const ELEMENT_RUNS = 7;
const ELEMENT_PAGE = '/estimate-example.html';

// A shared link's first answer within 150 ms of a blank page's first paint (goal), medians of LINK_RUNS
// cold loads of each: a blank page (served in place of the page through request interception), the
// default page (/index.html) and a shared link (LINK: Llama 3.1 70B served on 2 GPUs, 8 × 32,768 tokens).
const LINK_GOAL_AFTER_BLANK_MS = 150;
const LINK_RUNS = 7;
const LINK = '/index.html#model.preset=llama-3.1-70b&parallel.gpus=2&parallel.tp=2&infer.batch=8&infer.context_len=32768';
const BLANK_HTML = '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>blank</title></head><body><p>blank</p></body></html>\n';

const gz = (buffer) => gzipSync(buffer, { level: 9 }).length;
const middle = (list) => { const sorted = [...list].sort((a, b) => a - b); return sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN; };

/**
 * The shared link's figures: {blankPaint, defaultFirst, linkFirst, linkCore} (ms after navigation, medians)
 * and the lists they come from. The first answer is the mark memplan:first-result; the link's is the
 * core's (memplan:first-estimate beside it), the default page's the one computed at build time.
 */
async function measureLink(browser, server) {
  const lists = { blankPaint: [], defaultFirst: [], linkFirst: [], linkCore: [] };
  const mark = (name) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
  for (let run = 0; run < LINK_RUNS; run++) {
    for (const kind of ['blank', 'default', 'link']) {
      const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
      const page = await context.newPage();
      if (kind === 'blank') {
        await page.route(server.origin + '/blank.html', (route) => route.fulfill({ contentType: 'text/html', body: BLANK_HTML }));
        await page.goto(server.origin + '/blank.html');
        await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0);
        lists.blankPaint.push(await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0].startTime));
      } else {
        await page.goto(server.origin + (kind === 'link' ? LINK : '/index.html'));
        await page.waitForFunction(() => performance.getEntriesByName('memplan:first-result').length > 0);
        const first = await page.evaluate(mark, 'memplan:first-result');
        if (kind === 'default') lists.defaultFirst.push(first);
        else {
          lists.linkFirst.push(first);
          await page.waitForFunction(() => performance.getEntriesByName('memplan:first-estimate').length > 0);
          lists.linkCore.push(await page.evaluate(mark, 'memplan:first-estimate'));
        }
      }
      await context.close();
    }
  }
  return { lists, ...Object.fromEntries(Object.entries(lists).map(([k, v]) => [k, middle(v)])) };
}

/** The shared link's figures in one line. */
const linkLine = (l) => `shared link: first answer median ${l.linkFirst.toFixed(0)} ms after navigation ` +
  `(min ${Math.min(...l.lists.linkFirst).toFixed(0)}, max ${Math.max(...l.lists.linkFirst).toFixed(0)}), ` +
  `${(l.linkFirst - l.blankPaint).toFixed(0)} ms after a blank page's first paint (${l.blankPaint.toFixed(0)} ms; goal ${LINK_GOAL_AFTER_BLANK_MS} ms); ` +
  `the default page's first answer ${l.defaultFirst.toFixed(0)} ms; the link's core answer ${l.linkCore.toFixed(0)} ms ` +
  `(medians of ${LINK_RUNS} cold loads each, in the same run)`;

const server = await serve();
const browser = await launch();
if (process.argv.includes('--link')) {
  try {
    console.log(linkLine(await measureLink(browser, server)));
  } finally {
    await browser.close();
    server.stop();
  }
  process.exit(0);
}
let link = null;
const loaded = new Map();
const elementLoaded = new Map();
const element = { count: 0, afterModule: [], afterNavigation: [], paint: [], baselinePaint: [] };
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
  // The element page, cold, each run beside the baseline: the same HTML without the elements and their
  // script (served in place of the page through request interception), so both pay the same server.
  const exampleHtml = await readFile(DIST + ELEMENT_PAGE.slice(1), 'utf8');
  const baselineHtml = exampleHtml.replace(/<script type="module" src="memplan-estimate\.js"><\/script>\n?/, '')
    .replace(/<memplan-estimate[^>]*><\/memplan-estimate>\n?/g, '');
  for (let run = 0; run < ELEMENT_RUNS; run++) {
    for (const withElements of [false, true]) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const bodies = [];
      if (withElements) {
        page.on('response', (response) => {
          const url = new URL(response.url());
          if (url.origin === server.origin) bodies.push(response.body().then((body) => elementLoaded.set(url.pathname, body.length)));
        });
      } else {
        await page.route(server.origin + ELEMENT_PAGE, (route) => route.fulfill({ contentType: 'text/html', body: baselineHtml }));
      }
      await page.goto(server.origin + ELEMENT_PAGE);
      if (withElements) {
        await page.waitForFunction(() => [...document.querySelectorAll('memplan-estimate')].every((e) => e.result));
        const [module, first, paint, count] = await page.evaluate(() => [
          performance.getEntriesByName('memplan-estimate:module')[0].startTime,
          performance.getEntriesByName('memplan-estimate:first-answer')[0].startTime,
          (performance.getEntriesByName('first-contentful-paint')[0] || { startTime: NaN }).startTime,
          document.querySelectorAll('memplan-estimate').length]);
        element.count = count;
        element.afterModule.push(first - module);
        element.afterNavigation.push(first);
        element.paint.push(paint);
        await Promise.all(bodies);
      } else {
        await page.waitForLoadState('load');
        element.baselinePaint.push(await page.evaluate(() =>
          (performance.getEntriesByName('first-contentful-paint')[0] || { startTime: NaN }).startTime));
      }
      await context.close();
    }
  }
  link = await measureLink(browser, server);
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
const elementFiles = [];
for (const pathname of [...elementLoaded.keys()].sort()) {
  if (pathname === ELEMENT_PAGE) continue;  // the documentation page itself is the author's, not the element's
  const raw = await readFile(DIST + pathname.replace(/^\//, ''));
  elementFiles.push({ file: pathname.slice(1), raw: raw.length, gzip: gz(raw) });
}
const elementTotal = elementFiles.reduce((s, f) => s + f.gzip, 0);
const elementRaw = elementFiles.reduce((s, f) => s + f.raw, 0);
const elementFigures = {
  afterModule: middle(element.afterModule), afterNavigation: middle(element.afterNavigation),
  paint: middle(element.paint.filter(Number.isFinite)), baselinePaint: middle(element.baselinePaint.filter(Number.isFinite)),
  minModule: Math.min(...element.afterModule), maxModule: Math.max(...element.afterModule),
};
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
console.log('element file              raw B    gzip B');
for (const f of elementFiles) console.log(`${f.file.padEnd(24)} ${String(f.raw).padStart(7)} ${String(f.gzip).padStart(9)}`);
console.log(`element and its module: ${kb(elementTotal)} KiB gzipped (${kb(elementRaw)} KiB raw), budget ${kb(ELEMENT_BUDGET_GZIP_BYTES)} KiB, goal ${kb(ELEMENT_GOAL_GZIP_BYTES)} KiB`);
console.log(`element page (${element.count} elements): first answer median ${elementFigures.afterModule.toFixed(0)} ms after the element's module ` +
  `(min ${elementFigures.minModule.toFixed(0)}, max ${elementFigures.maxModule.toFixed(0)}; goal ${ELEMENT_GOAL_FIRST_ANSWER_MS} ms), ` +
  `${elementFigures.afterNavigation.toFixed(0)} ms after navigation; first paint ${elementFigures.paint.toFixed(0)} ms, ` +
  `baseline page without elements ${elementFigures.baselinePaint.toFixed(0)} ms (medians of ${ELEMENT_RUNS} cold loads each)`);
console.log(linkLine(link));
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
    `- A shared link (\`${LINK.slice(1)}\`): first answer median **${link.linkFirst.toFixed(0)} ms** after navigation ` +
    `(min ${Math.min(...link.lists.linkFirst).toFixed(0)} ms, max ${Math.max(...link.lists.linkFirst).toFixed(0)} ms), ` +
    `**${(link.linkFirst - link.blankPaint).toFixed(0)} ms after a blank page's first paint** (${link.blankPaint.toFixed(0)} ms; goal ` +
    `${LINK_GOAL_AFTER_BLANK_MS} ms, ${link.linkFirst - link.blankPaint <= LINK_GOAL_AFTER_BLANK_MS ? 'met' : 'not met'}); the default page's first answer ` +
    `${link.defaultFirst.toFixed(0)} ms; the link's answer from the core with its form built ${link.linkCore.toFixed(0)} ms ` +
    `(medians of ${LINK_RUNS} cold loads of each, in turn, in the same run).\n` +
    `- Typing a context length (12 values key by key): input to redrawn total median **${totalMedian.toFixed(1)} ms** over ` +
    `${typing.total.length} inputs (goal one frame, 16 ms); input to redrawn derived views median **${viewsMedian.toFixed(1)} ms** over ` +
    `${typing.views.length} (goal 50 ms).\n` +
    `- The element \`<memplan-estimate>\` (\`${ELEMENT_PAGE.slice(1)}\`, ${element.count} elements): its script and the estimate-only ` +
    `module weigh **${kb(elementTotal)} KiB gzipped** (enforced budget ${kb(ELEMENT_BUDGET_GZIP_BYTES)} KiB; goal ` +
    `${kb(ELEMENT_GOAL_GZIP_BYTES)} KiB, ${elementTotal <= ELEMENT_GOAL_GZIP_BYTES ? 'met' : 'not met'}: ` +
    elementFiles.map((f) => `${f.file} ${f.gzip} B`).join(', ') + `); first answer median **${elementFigures.afterModule.toFixed(0)} ms** ` +
    `after the element's module is evaluated (min ${elementFigures.minModule.toFixed(0)} ms, max ${elementFigures.maxModule.toFixed(0)} ms; ` +
    `goal ${ELEMENT_GOAL_FIRST_ANSWER_MS} ms), ${elementFigures.afterNavigation.toFixed(0)} ms after navigation; the page's first paint ` +
    `${elementFigures.paint.toFixed(0)} ms, the same page without the elements ${elementFigures.baselinePaint.toFixed(0)} ms ` +
    `(medians of ${ELEMENT_RUNS} cold loads each, in the same run).\n<!-- measured:end -->`;
  await writeFile(path, doc.replace(/<!-- measured:begin -->[\s\S]*<!-- measured:end -->/, figures));
  console.log('wrote docs/budgets.md');
}

if (process.argv.includes('--check')) {
  let ok = true;
  if (total > BUDGET_GZIP_BYTES) { console.error(`over budget: page ${total} B gzipped > ${BUDGET_GZIP_BYTES} B`); ok = false; }
  if (elementTotal > ELEMENT_BUDGET_GZIP_BYTES) {
    console.error(`over budget: element and its module ${elementTotal} B gzipped > ${ELEMENT_BUDGET_GZIP_BYTES} B`); ok = false;
  }
  if (!elementFiles.some((f) => f.file.endsWith('.wasm'))) { console.error('the element page loaded no .wasm: nothing was weighed'); ok = false; }
  // Time is a benchmark figure, recorded in docs/budgets.md, not a pass/fail test: a loaded CI
  // machine must not fail the build. Only the deterministic weight budget fails --check.
  if (median > BUDGET_FIRST_RESULT_MS) console.warn(`note: first result ${median.toFixed(0)} ms > ${BUDGET_FIRST_RESULT_MS} ms on this (possibly busy) machine`);
  if (!ok) process.exit(1);
}
