// Differential test: random valid configurations through the native CLI (`memplan estimate --config -`)
// and the WebAssembly API must give byte-identical JSON. The CLI is build/ci/memplan (scripts/test.sh
// builds it) or $MEMPLAN_CLI.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { load } from '../../dist/memplan.js';

const cli = process.env.MEMPLAN_CLI || fileURLToPath(new URL('../../build/ci/memplan', import.meta.url));
const COUNT = 600;
const mp = await load();

/** Deterministic PRNG (mulberry32) so that a failure is reproducible from its index. */
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random configuration that is valid by construction (heads, tp, pp, gpus consistent). */
function randomConfig(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const heads = pick([8, 12, 16, 32, 40, 64, 96, 128]);
  const headDim = pick([64, 80, 128]);
  const kvHeads = pick([heads, heads, Math.max(1, heads / 4), Math.max(1, heads / 8), 1].filter((k) => heads % k === 0));
  const tp = pick([1, 2, 4, 8].filter((t) => heads % t === 0 && (kvHeads % t === 0 || t % kvHeads === 0)));
  const layers = pick([2, 12, 24, 32, 44, 80, 96]);
  const pp = pick([1, 1, 2, 4, 8].filter((p) => p <= layers));
  const dp = pick([1, 2, 3, 8, 16, 64, 1000]);
  const model = { num_hidden_layers: layers, hidden_size: heads * headDim, num_attention_heads: heads };
  if (random() < 0.6) model.params = pick([125e6, 1.3e9, 7e9, 6738415616, 13e9, 70e9, 175e9, 1e12, Math.floor(random() * 1e11) + 1]);
  if (random() < 0.5) model.num_key_value_heads = kvHeads;
  if (random() < 0.3) model.head_dim = headDim;
  if (random() < 0.5) model.intermediate_size = pick([4 * heads * headDim, 11008, 14336, 28672]);
  if (random() < 0.5) model.vocab_size = pick([32000, 50257, 128256, 256000]);
  const config = {
    mode: random() < 0.75 ? 'train' : 'infer',
    model,
    parallel: {
      gpus: dp * tp * pp, tp, pp,
      zero_stage: pick([0, 1, 2, 3]),
      sequence_parallel: random() < 0.3,
      partition_activations: random() < 0.2,
    },
    train: {
      micro_batch: pick([1, 1, 2, 4, 16]),
      seq_len: pick([512, 2048, 4096, 8192, 32768]),
      recompute: pick(['none', 'selective', 'full']),
      flash_attention: random() < 0.5,
      weight_dtype: pick(['bf16', 'fp16', 'fp32', 'fp8']),
      grad_dtype: pick(['bf16', 'fp32']),
      master_weights: random() < 0.8,
      optimizer: pick(['adam', 'adam_8bit', 'sgd', 'sgd_momentum', 'lion', 'none']),
    },
    infer: {
      batch: pick([1, 8, 64]),
      context_len: pick([2048, 8192, 131072]),
      weight_dtype: pick(['bf16', 'fp8', 'int8', 'int4']),
      kv_dtype: pick(['bf16', 'fp8']),
    },
  };
  if (random() < 0.3) config.parallel.zero_bucket_params = pick([0, 2e8, 5e8]);
  if (random() < 0.3) config.parallel.zero3_max_live_params = pick([0, 1e8, 1e9]);
  if (random() < 0.3) config.train.microbatches_in_flight = pick([1, 2, 8]);
  if (random() < 0.5) config.overhead = { misc_bytes: pick([0, 1e9, 2.5e9]) };
  if (random() < 0.8) config.gpu = { memory_bytes: pick([24e9, 40e9, 80e9, 141e9, 192e9]) };
  return config;
}

/** Runs the CLI once for one configuration text and resolves its stdout. */
function runCli(text) {
  return new Promise((resolve, reject) => {
    const child = spawn(cli, ['estimate', '--config', '-'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => { out += chunk; });
    child.on('error', reject);
    child.on('close', () => resolve(out));
    child.stdin.end(text);
  });
}

/** Runs every text through the CLI, `parallel` processes at a time, keeping the order. */
async function runAll(texts, parallel) {
  const results = new Array(texts.length);
  let next = 0;
  const worker = async () => {
    while (next < texts.length) {
      const i = next++;
      results[i] = await runCli(texts[i]);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return results;
}

test(`${COUNT} random valid configurations give byte-identical JSON in the CLI and the WASM API`, async (t) => {
  assert.ok(existsSync(cli), `native CLI not found at ${cli}: run cmake --preset ci && cmake --build --preset ci`);
  const random = prng(20240601);
  const texts = Array.from({ length: COUNT }, () => JSON.stringify(randomConfig(random)));
  const outputs = await runAll(texts, Math.max(4, cpus().length * 4));
  let valid = 0;
  for (let i = 0; i < COUNT; i++) {
    const wasm = mp.estimateJson(texts[i]);
    assert.equal(outputs[i], wasm + '\n', `configuration #${i}: ${texts[i]}`);
    const parsed = JSON.parse(wasm);
    if (parsed.errors.length === 0) {
      valid++;
      assert.deepEqual(mp.estimate(JSON.parse(texts[i])), parsed);  // the object API agrees with the text
      assert.deepEqual(mp.analyze(texts[i]).estimate, parsed);       // and analyze embeds the same object
    }
  }
  // Valid by construction, except where a product exceeds 2^53 bytes (the core reports it by field).
  t.diagnostic(`${valid} of ${COUNT} configurations valid`);
  assert.ok(valid >= 500, `only ${valid} of ${COUNT} configurations were valid`);
});

test('invalid configurations give the same errors in the CLI and the WASM API', async () => {
  assert.ok(existsSync(cli));
  const texts = ['', '{', '[]', 'null', '{"x":1}', '{"parallel":{"tp":3,"gpus":8},"model":{"params":1}}',
    '{"model":{"params":-1}}', '{"mode":"infer"}', '{"train":{"seq_len":0}}', '{"model":{"params":"7e9"}}',
    '{"parallel":{"zero_stage":1.5}}', '{"gpu":{"memory_bytes":1e300}}', '{"model":{"\u00e9":1}}'];
  const outputs = await runAll(texts, 8);
  texts.forEach((text, i) => assert.equal(outputs[i], mp.estimateJson(text) + '\n', text));
});
