// memplan's JS API timed against EleutherAI's transformer_mem.py evaluated in-process by Python, on
// the same N configurations, side by side in one run; then analyze() at pp 4 and pp 80.
//   node bench/bench.mjs [--quick]      (after scripts/build-web.sh; `npm run bench` runs both benches)
// The Python script is not part of this repository: set MEMPLAN_TRANSFORMER_MEM_PY to its path
// (EleutherAI cookbook, calc/transformer_mem.py) for the side-by-side reference; without it the
// reference is skipped and said so. Timings inform only: this program fails only when memplan does.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

const quick = process.argv.includes('--quick');
const here = fileURLToPath(new URL('.', import.meta.url));
const distApi = new URL('../dist/memplan.js', import.meta.url);
if (!existsSync(fileURLToPath(distApi))) {
  console.error('bench.mjs: dist/memplan.js is missing; run scripts/build-web.sh first');
  process.exit(1);
}
const { load, loadFastEstimator } = await import(distApi.href);
const mp = await load();
const fast = await loadFastEstimator();

// N configurations: the script's models (its examples: Pythia 6.9B, 12B, 20B; Llama-2/3 shapes)
// under a grid of layouts. Each as transformer_mem.py flags and as the same memplan configuration.
const models = [
  { layers: 32, hidden: 4096, heads: 32, params: 6.9e9 },
  { layers: 36, hidden: 5120, heads: 40, params: 12e9 },
  { layers: 44, hidden: 6144, heads: 64, params: 20e9 },
  { layers: 80, hidden: 8192, heads: 64, params: 70e9 },
];
const cases = [];
for (const m of models)
  for (const [tp, pp] of [[1, 1], [2, 1], [4, 2], [8, 4]])
    for (const zero of [0, 1, 2, 3])
      for (const ca of [false, true]) {
        const gpus = tp * pp * 16;
        const seq = 2048, batch = 4;
        const argv = [`--num-layers=${m.layers}`, `--sequence-length=${seq}`, `--num-attention-heads=${m.heads}`,
          `--hidden-size=${m.hidden}`, `--batch-size-per-gpu=${batch}`, `--zero-stage=${zero}`,
          `--tensor-parallel-size=${tp}`, `--pipeline-parallel-size=${pp}`, `--num-gpus=${gpus}`, `--params=${m.params}`];
        if (ca) argv.push('--checkpoint-activations');
        const config = {
          model: { num_hidden_layers: m.layers, hidden_size: m.hidden, num_attention_heads: m.heads, params: m.params },
          parallel: { gpus, tp, pp, zero_stage: zero },
          train: { seq_len: seq, micro_batch: batch, recompute: ca ? 'full' : 'none' },
        };
        cases.push({ argv, config });
      }

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** Median over `runs` passes of the per-call time (µs) of fn over every configuration. */
function time(runs, fn) {
  const passes = [];
  for (let r = 0; r < runs; r++) {
    const start = process.hrtime.bigint();
    for (const c of cases) fn(c);
    passes.push(Number(process.hrtime.bigint() - start) / 1e3 / cases.length);
  }
  return median(passes);
}

// Same numbers both ways: the fast path answers what the JSON path answers.
for (const c of cases) {
  const a = fast.estimate(c.config), b = mp.estimate(c.config);
  if (JSON.stringify(a.per_gpu) !== JSON.stringify(b.per_gpu) || a.params !== b.params) {
    console.error('bench.mjs: the fast path differs from mp.estimate for', JSON.stringify(c.config));
    process.exit(1);
  }
}

const runs = quick ? 3 : 31;
// Warm-up by time, not by count: V8 first runs WebAssembly with its baseline compiler (Liftoff) and
// compiles hot functions with its optimising one (TurboFan) in the background. Measured here: 20
// passes over the 128 configurations give 10.3 us per fast estimate, 100 passes 5.3 us, 400 passes
// 2.5 us, 3,000 passes 2.3 us. A steady-state figure needs the optimised code: each timed part is
// first run for WARM_MS of wall time (a search of thousands of layouts per keystroke runs that long).
// Each later round first runs the fast path again for a tenth of that: after the Python pass the
// process has slept, and the first milliseconds after a sleep measured up to twice as slow here.
const WARM_MS = quick ? 20 : 1000;
const warm = (fn, ms = WARM_MS) => {
  const until = performance.now() + ms;
  while (performance.now() < until) fn();
};
const rows = [];
let python = null;
const script = process.env.MEMPLAN_TRANSFORMER_MEM_PY;
const runPython = () => {
  if (!script) return null;
  const out = spawnSync('python3', [`${here}transformer_mem_driver.py`, script, String(runs)],
    { input: JSON.stringify(cases.map((c) => c.argv)), encoding: 'utf8' });
  if (out.status !== 0) {
    console.error(`bench.mjs: the Python reference failed: ${out.stderr.trim()}`);
    return null;
  }
  return JSON.parse(out.stdout);
};
// Interleaved: JS, Python, JS, Python, so that a change of machine load hits both.
const jsFast = [], jsJson = [], py = [];
for (let round = 0; round < (quick ? 1 : 7); round++) {
  if (round === 0) warm(() => mp.estimate(cases[0].config));
  warm(() => { for (const c of cases) fast.estimate(c.config); }, round === 0 ? WARM_MS : WARM_MS / 10);
  jsFast.push(time(runs, (c) => fast.estimate(c.config)));
  jsJson.push(time(quick ? 2 : 7, (c) => mp.estimate(c.config)));
  const p = runPython();
  if (p) { py.push(p.median_us); python = p.python; }
}
const fastUs = median(jsFast), jsonUs = median(jsJson);
console.log(`bench.mjs (${quick ? 'quick' : 'full'}): ${cases.length} configurations, node ${process.version}, ${cpus()[0]?.model ?? 'cpu'}`);
console.log(`  JS fast estimator (loadFastEstimator)   ${fastUs.toFixed(2).padStart(9)} us / estimate`);
console.log(`  JS mp.estimate (JSON, full result)      ${jsonUs.toFixed(2).padStart(9)} us / estimate`);
if (py.length) {
  const pyUs = median(py);
  console.log(`  Python transformer_mem.py calc_mem      ${pyUs.toFixed(2).padStart(9)} us / call (Python ${python}, in-process)`);
  console.log(`  ratio Python / JS fast                  ${(pyUs / fastUs).toFixed(2).padStart(9)} x`);
  console.log(`  ratio Python / JS mp.estimate           ${(pyUs / jsonUs).toFixed(2).padStart(9)} x`);
} else {
  console.log('  side-by-side reference skipped: set MEMPLAN_TRANSFORMER_MEM_PY to the path of transformer_mem.py');
}

// analyze(): Llama-3-70B training, tp 8, pp 4 on 1,024 GPUs and pp 80 on 1,280 GPUs (a multiple of 640).
const llama = (gpus, pp) => ({
  model: { preset: 'llama-3-70b' }, mode: 'train',
  parallel: { gpus, tp: 8, pp, zero_stage: 1, sequence_parallel: true },
  train: { micro_batch: 1, seq_len: 8192, recompute: 'selective', flash_attention: true },
  gpu: { memory_bytes: 80e9 },
});
for (const [gpus, pp] of [[1024, 4], [1280, 80]]) {
  const text = JSON.stringify(llama(gpus, pp));
  if (JSON.parse(mp.analyzeJson(text)).errors.length) { console.error('bench.mjs: analyze failed'); process.exit(1); }
  const ms = [];
  warm(() => mp.analyzeJson(text));
  for (let r = 0; r < (quick ? 2 : 15); r++) {
    const start = process.hrtime.bigint();
    mp.analyzeJson(text);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  console.log(`  analyze, Llama-3-70B train tp8 pp${String(pp).padEnd(2)} ${String(gpus).padStart(4)} GPUs  ${median(ms).toFixed(2).padStart(9)} ms (median of ${ms.length})`);
}

// The layout planner: a full training search for Llama-3-70B over 64 … 1,024 GPUs (64, 128, 256, 512,
// 1,024; global batch 1,024 sequences of 4,096 tokens on H100s), against 10,000 calc_mem calls of the
// same run when the Python reference is present (the goal: the search costs at most that).
{
  const request = { config: { mode: 'train', model: { preset: 'llama-3-70b' }, train: { seq_len: 4096 } },
    gpu: 'h100-sxm-80gb', min_gpus: 64, max_gpus: 1024, global_batch: 1024, top_n: 10 };
  const first = mp.plan(request);
  const ms = [];
  warm(() => mp.plan(request), quick ? 20 : 2000);
  for (let r = 0; r < (quick ? 2 : 9); r++) {
    const start = process.hrtime.bigint();
    mp.plan(request);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const planMs = median(ms);
  console.log(`  plan, Llama-3-70B train, 64–1,024 H100s     ${planMs.toFixed(2).padStart(9)} ms (median of ${ms.length}; ` +
    `${first.considered.toLocaleString('en-US')} layouts, ${first.fitting.toLocaleString('en-US')} fit; best ${first.top[0].text} on ${first.top[0].gpus} GPUs)`);
  if (py.length) {
    const budgetMs = median(py) * 10000 / 1000;
    console.log(`  10,000 calc_mem calls, same run              ${budgetMs.toFixed(2).padStart(9)} ms; plan / that ${(planMs / budgetMs).toFixed(2)} x`);
  }
}
