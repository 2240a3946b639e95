// One figure decides the fit, and every analysis view shows it: over 200 random training and serving
// configurations (a fixed seed), the estimate's gpu.needed_bytes, the ZeRO table's row for the
// configured stage, the GPU-count sweep's point at the configured GPU count and the stored-model list's
// entry for the same model are one number, and each view's "fits" is that number against the GPU.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { load } from '../../dist/memplan.js';

const mp = await load();

/** A small fixed-seed generator (mulberry32), so that a failure names a configuration that comes back. */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const presets = ['llama-3.1-8b', 'llama-2-7b', 'qwen2.5-7b', 'mistral-7b-v0.1', 'gemma-2-9b', 'qwen3-8b'];

function randomConfig(next) {
  const pick = (list) => list[Math.floor(next() * list.length)];
  const preset = pick(presets);
  const capacity = pick(['a100-sxm-80gb', 'h100-sxm-80gb', 'rtx-4090-24gb', 'l40s-48gb']);
  const memory = mp.gpus().find((g) => g.id === capacity).capacity_bytes;
  if (next() < 0.7) {
    const tp = pick([1, 2]);
    const dp = pick([1, 2, 4]);
    return {
      mode: 'train', model: { preset },
      parallel: { gpus: tp * dp, tp, zero_stage: pick([0, 1, 2, 3]) },
      train: { seq_len: pick([1024, 2048, 4096, 8192]), micro_batch: pick([1, 2, 4]), recompute: pick(['none', 'selective', 'full']) },
      gpu: { memory_bytes: memory },
    };
  }
  return {
    mode: 'infer', model: { preset },
    infer: { context_len: pick([2048, 8192, 32768]), batch: pick([1, 8, 32]) },
    gpu: { memory_bytes: memory },
  };
}

test('200 random configurations: the verdict, the ZeRO table, the sweep and the model list show one figure', () => {
  const next = generator(20261207);
  let checked = 0;
  let differing = 0;  // configurations where the step's peak is above the steady-state sum
  for (let i = 0; i < 200; i += 1) {
    const config = randomConfig(next);
    const label = JSON.stringify(config);
    const a = mp.analyze(config);
    const needed = a.estimate.gpu.needed_bytes;
    const capacity = a.estimate.gpu.capacity_bytes;
    assert.equal(a.estimate.gpu.fits, needed <= capacity, label);
    if (needed !== a.estimate.per_gpu.total) differing += 1;
    if (config.mode === 'train') {
      // The ZeRO table's row of the configured stage, and every row against its own verdict.
      const row = a.stages.find((s) => s.stage === config.parallel.zero_stage);
      assert.equal(row.total, needed, label);
      for (const s of a.stages) if (s.total !== null) assert.equal(s.fits, s.total <= capacity, `${label} stage ${s.stage}`);
      // The GPU-count sweep at the configured count (its points are tp · pp · 2^k GPUs).
      const point = a.sweep.find((p) => p.gpus === config.parallel.gpus);
      if (point) assert.equal(point.totals[config.parallel.zero_stage], needed, label);
    }
    // The stored-model list's entry for the configured model.
    const entry = mp.presetFits(config).find((m) => m.id === config.model.preset);
    assert.ok(entry, label);
    assert.equal(entry.total_bytes, needed, label);
    assert.equal(entry.fits, a.estimate.gpu.fits, label);
    checked += 1;
  }
  assert.equal(checked, 200);
  // The case this guards: training setups whose step peak is above the steady-state sum are among them.
  assert.ok(differing >= 20, `only ${differing} configurations with a peak above the sum`);
});
