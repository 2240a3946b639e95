// Differential test: random valid configurations through the native CLI (`memplan estimate --config -`,
// with `--preset ID` or `--hf-config FILE` for some) and the WebAssembly API must give byte-identical
// JSON. The CLI is build/ci/memplan (scripts/test.sh builds it) or $MEMPLAN_CLI.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { load } from '../../dist/memplan.js';

const cli = process.env.MEMPLAN_CLI || fileURLToPath(new URL('../../build/ci/memplan', import.meta.url));
const COUNT = 600;
const mp = await load();
const PRESETS = mp.presets();

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
  // Options added with the full training model  and inference quantization .
  if (random() < 0.3) config.train.optimizer = 'adafactor';
  if (random() < 0.3) config.parallel.fsdp = pick(['full_shard', 'shard_grad_op', 'hybrid_shard', 'hybrid_shard_zero2', 'no_shard']);
  if (random() < 0.2) config.parallel.zero_shard_size = pick([1, 2, 8]);
  if (random() < 0.3) config.parallel.offload_optimizer = pick(['none', 'cpu', 'nvme']);
  if (random() < 0.2) { config.parallel.offload_params = pick(['cpu', 'nvme']); config.parallel.zero_stage = 3; delete config.parallel.fsdp; }
  if (random() < 0.3) config.parallel.gpus_per_node = pick([1, 4, 8, 16]);
  if (random() < 0.3 && pp > 1) config.parallel.virtual_stages = pick([1, 2]);
  if (random() < 0.3) {  // context parallelism: the sequence and context divide by cp
    const cp = pick([2, 4]);
    config.parallel.cp = cp;
    config.parallel.gpus *= cp;
  }
  if (random() < 0.4) config.infer.quant_group_size = pick([32, 64, 128]);
  if (random() < 0.3) config.infer.flash_attention = random() < 0.5;
  if (random() < 0.3) config.infer.prefill_tokens = pick([512, 2048]);
  if (random() < 0.3) config.infer.weight_dtype = pick(['fp32', 'fp16', 'int4']);
  if (random() < 0.2) config.infer.kv_dtype = pick(['int8', 'fp16']);
  return config;
}

/** A Hugging Face config.json from a stored preset, with irrelevant keys as real configs carry. */
function hfConfigOf(random, preset) {
  const hf = { ...preset.config, architectures: ['X'], torch_dtype: 'bfloat16', rope_theta: 10000, bos_token_id: 1,
    transformers_version: '4.40.0', initializer_range: 0.02 };
  if (random() < 0.3) hf.max_position_embeddings = 4096;
  return hf;
}

/**
 * One case: {text, args, hf}. The model comes from the random architecture, from `model.preset` (with
 * overrides), from --preset, or from --hf-config; MoE presets get expert parallelism.
 */
function randomCase(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const config = randomConfig(random);
  const kind = random();
  if (kind < 0.55) return { text: JSON.stringify(config), args: [], hf: '' };
  const preset = pick(PRESETS);
  // A layout the preset accepts: tp divides the heads and KV heads (or is a multiple of them).
  const heads = preset.config.num_attention_heads ?? preset.config.n_head;
  const kv = preset.config.num_key_value_heads ?? heads;
  const layers = preset.config.num_hidden_layers ?? preset.config.n_layer;
  const tp = pick([1, 2, 4, 8].filter((t) => heads % t === 0 && (kv % t === 0 || t % kv === 0)));
  const pp = pick([1, 2, 4].filter((q) => q <= layers));
  const cp = config.parallel.cp || 1;
  const dp = pick([1, 2, 8, 16]);
  Object.assign(config.parallel, { tp, pp, gpus: dp * tp * pp * cp });
  if (pp === 1) delete config.parallel.virtual_stages;
  const experts = preset.config.num_local_experts || 0;
  if (experts && random() < 0.7) config.parallel.ep = pick([1, 2, 4, 8].filter((e) => experts % e === 0 && (dp * cp) % e === 0));
  if (kind < 0.7) {
    config.model = { preset: preset.id };
    if (random() < 0.3) config.model.vocab_size = pick([32000, 65536]);
    if (random() < 0.2) config.model.sliding_window = pick([0, 4096]);
    return { text: JSON.stringify(config), args: [], hf: '' };
  }
  delete config.model;
  if (kind < 0.8) return { text: JSON.stringify(config), args: ['--preset', preset.id], hf: JSON.stringify({ preset: preset.id }) };
  return { text: JSON.stringify(config), args: ['--hf-config'], hf: JSON.stringify(hfConfigOf(random, preset), null, 1) };
}

/** Runs the CLI once for one configuration text (and extra arguments) and resolves its stdout. */
function runCli(text, args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(cli, ['estimate', '--config', '-', ...args], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => { out += chunk; });
    child.on('error', reject);
    child.on('close', () => resolve(out));
    child.stdin.end(text);
  });
}

/** Runs every case (a text, or {text, args}) through the CLI, `parallel` processes at a time, keeping the order. */
async function runAll(cases, parallel) {
  const results = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      const c = typeof cases[i] === 'string' ? { text: cases[i], args: [] } : cases[i];
      results[i] = await runCli(c.text, c.args);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return results;
}

test(`${COUNT} random valid configurations (presets, Hugging Face configs, cp/ep, FSDP, offload, quantization) give byte-identical JSON in the CLI and the WASM API`, async (t) => {
  assert.ok(existsSync(cli), `native CLI not found at ${cli}: run cmake --preset ci && cmake --build --preset ci`);
  const random = prng(20240601);
  const cases = Array.from({ length: COUNT }, () => randomCase(random));
  const dir = mkdtempSync(path.join(tmpdir(), 'memplan-hf-'));
  try {
    cases.forEach((c, i) => {
      if (c.args[0] !== '--hf-config') return;
      const file = path.join(dir, `config-${i}.json`);
      writeFileSync(file, c.hf);
      c.args = ['--hf-config', file];
    });
    const outputs = await runAll(cases, Math.max(4, cpus().length * 4));
    let valid = 0;
    const kinds = { plain: 0, preset: 0, '--preset': 0, '--hf-config': 0 };
    for (let i = 0; i < COUNT; i++) {
      const { text, hf, args } = cases[i];
      const wasm = mp.estimateJson(text, hf);
      assert.equal(outputs[i], wasm + '\n', `configuration #${i}: ${text} ${args.join(' ')}`);
      const parsed = JSON.parse(wasm);
      if (parsed.errors.length === 0) {
        valid++;
        kinds[args[0] || (text.includes('"preset"') ? 'preset' : 'plain')]++;
        const options = hf ? { hfConfig: JSON.parse(hf) } : undefined;
        assert.deepEqual(mp.estimate(JSON.parse(text), options), parsed);  // the object API agrees with the text
        assert.deepEqual(mp.analyze(text, options).estimate, parsed);       // and analyze embeds the same object
      }
    }
    t.diagnostic(`${valid} of ${COUNT} configurations valid: ${JSON.stringify(kinds)}`);
    assert.ok(valid >= 400, `only ${valid} of ${COUNT} configurations were valid`);
    for (const [kind, n] of Object.entries(kinds)) assert.ok(n >= 20, `only ${n} valid ${kind} cases`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('invalid configurations give the same errors in the CLI and the WASM API', async () => {
  assert.ok(existsSync(cli));
  const texts = ['', '{', '[]', 'null', '{"x":1}', '{"parallel":{"tp":3,"gpus":8},"model":{"params":1}}',
    '{"model":{"params":-1}}', '{"mode":"infer"}', '{"train":{"seq_len":0}}', '{"model":{"params":"7e9"}}',
    '{"parallel":{"zero_stage":1.5}}', '{"gpu":{"memory_bytes":1e300}}', '{"model":{"\u00e9":1}}'];
  const outputs = await runAll(texts, 8);
  texts.forEach((text, i) => assert.equal(outputs[i], mp.estimateJson(text) + '\n', text));
  // Broken Hugging Face configs (--hf-config) and an unknown preset key.
  const hfs = ['{', '[]', '{"model_type":"llama","hidden_size":4096,"num_attention_heads":30,"num_hidden_layers":2}',
    '{"model_type":"llama","num_attention_heads":32,"num_hidden_layers":2}', '{"n_layer":"x","model_type":"gpt2"}'];
  const dir = mkdtempSync(path.join(tmpdir(), 'memplan-hf-'));
  try {
    const cases = hfs.map((hf, i) => {
      const file = path.join(dir, `bad-${i}.json`);
      writeFileSync(file, hf);
      return { text: '{}', args: ['--hf-config', file] };
    });
    cases.push({ text: '{"model":{"preset":"no-such-model"}}', args: [] });
    const hfOutputs = await runAll(cases, 4);
    hfs.forEach((hf, i) => assert.equal(hfOutputs[i], mp.estimateJson('{}', hf) + '\n', hf));
    assert.equal(hfOutputs[hfs.length], mp.estimateJson(cases[hfs.length].text) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
