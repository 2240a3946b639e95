// The page state (web/state.js) against a fixed schema: the URL codec, the configuration object it
// describes (numbers read by the core as each field reads them, mp.parseField of dist/memplan.js, as the
// page reads them), the values the core used, and the checks of a pasted config.json.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { load } from '../../dist/memplan.js';
import { spec } from './helpers.mjs';
import { HUB_KEY, MAX_JSON_DEPTH, buildConfig, capacityBytes, decodeState, defaultState, encodeState, jsonDepth, linkSetsNothing,
  modelFields, parseHfConfig, quotePythonWords, usedValue } from '../../web/state.js';

const mp = await load();
/** The core's reader of a number field's text, recording what the page asked it to read. */
const seen = [];
const parse = (text, path) => {
  seen.push([text, path]);
  return mp.parseField(text, path);
};

/** The page's former starting example (a 20B GPT-style model training under ZeRO-1 on 8 GPUs), kept as a fixture. */
const example = () => ({ ...defaultState(spec), mode: 'train', 'model.preset': '', 'model.params': '20e9', 'model.num_hidden_layers': '44',
  'model.hidden_size': '6144', 'model.num_attention_heads': '64', 'parallel.gpus': '8', 'parallel.zero_stage': '1' });

test('the starting state: the schema defaults, the page settings and the page\'s example question', () => {
  const s = defaultState(spec);
  assert.equal(s['train.seq_len'], '2048');            // schema default 2048, as text
  assert.equal(s['train.flash_attention'], false);     // schema default false
  assert.equal(s['infer.flash_attention'], true);
  assert.equal(s['model.qkv_bias'], '');               // no default: not set
  assert.equal(s['model.preset'], 'llama-3.1-8b');     // the example: Llama 3.1 8B served at 8k on one H100
  assert.equal(s.mode, 'infer');
  assert.equal(s['infer.context_len'], '8192');
  assert.equal(s['parallel.gpus'], '1');
  assert.equal(s['parallel.zero_stage'], '0');         // schema default
  assert.equal(s['gpu.preset'], 'h100-sxm-80gb');
  assert.equal(s.unit, 'GiB');
  assert.equal('gpu.memory_bytes' in s, false);        // asked for in GB as gpu.custom_gb
});

test('the starting state has an empty link; a changed state round-trips through its link', () => {
  assert.equal(encodeState(spec, { ...defaultState(spec), 'model.preset': '' }), '');  // no preset known to this stub
  const state = { ...defaultState(spec), 'model.preset': '', mode: 'train', 'infer.batch': '32', 'infer.context_len': '4096',
    'gpu.preset': 'custom', 'gpu.custom_gb': '48', unit: 'GB', 'train.flash_attention': true, 'model.qkv_bias': false };
  const hash = encodeState(spec, state);
  assert.equal(hash, '#mode=train&model.qkv_bias=0&train.flash_attention=1&infer.batch=32&infer.context_len=4096' +
    '&gpu.preset=custom&gpu.custom_gb=48&unit=GB');
  const back = decodeState(spec, hash);
  assert.deepEqual(back.rejected, []);
  assert.deepEqual(back.state, state);
});

test('a preset link names the preset and only the fields that differ from it', () => {
  const llama = { ...modelFields(spec, { num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32, norm: 'rmsnorm', qkv_bias: false }) };
  const presetFields = (id) => (id === 'llama' ? llama : null);
  const state = { ...defaultState(spec), ...llama, 'model.preset': 'llama', 'model.vocab_size': '32768' };
  const hash = encodeState(spec, state, presetFields);
  assert.equal(hash, '#model.preset=llama&model.vocab_size=32768');
  assert.deepEqual(decodeState(spec, hash, presetFields).state, state);
  assert.deepEqual(decodeState(spec, '#model.preset=gone', presetFields).rejected, ['model.preset']);
  // The starting preset (llama-3.1-8b) applies without a link entry; a link leaving the preset says so ('').
  const start = (id) => (id === 'llama-3.1-8b' ? llama : null);
  const opened = decodeState(spec, '', start).state;
  assert.equal(opened['model.preset'], 'llama-3.1-8b');
  assert.equal(opened['model.hidden_size'], '4096');
  assert.equal(encodeState(spec, opened, start), '');
  const custom = { ...opened, 'model.preset': '' };
  // Leaving the preset keeps its fields; keys it left unset ('') differ from the schema defaults and are listed.
  assert.equal(encodeState(spec, custom, start), '#model.preset=&model.num_hidden_layers=32&model.hidden_size=4096' +
    '&model.num_attention_heads=32&model.learned_positions=&model.norm=rmsnorm&model.qkv_bias=0&model.num_local_experts=' +
    '&model.num_experts_per_tok=&model.shared_expert_intermediate_size=&model.sliding_window=&model.sliding_window_layers=');
  assert.deepEqual(decodeState(spec, encodeState(spec, custom, start), start).state, custom);
});

test('a resolved model as form fields: keys it leaves out are not set, booleans keep the schema default', () => {
  const fields = modelFields(spec, { num_hidden_layers: 32, hidden_size: 4096, norm: 'rmsnorm', mlp_bias: false, learned_positions: 0, preset: 'x' });
  assert.equal(fields['model.num_hidden_layers'], '32');
  assert.equal(fields['model.norm'], 'rmsnorm');
  assert.equal(fields['model.mlp_bias'], false);
  assert.equal(fields['model.learned_positions'], '0');
  assert.equal(fields['model.params'], '');            // left out: counted from the architecture
  assert.equal(fields['model.head_dim'], '');
  assert.equal('model.preset' in fields, false);
  assert.equal(Object.keys(fields).length, 24);
});

test('a malformed link keeps the defaults and lists what it rejected', () => {
  const { state, rejected } = decodeState(spec, '#parallel.gpus=abc&evil=%3Cimg%3E&train.recompute=drop&train.flash_attention=yes&mode=train');
  assert.deepEqual(rejected, ['parallel.gpus', 'evil', 'train.recompute', 'train.flash_attention']);
  assert.equal(state['parallel.gpus'], '1');
  assert.equal(state.mode, 'train');
  assert.deepEqual(decodeState(spec, '#' + 'a'.repeat(5000)).rejected, ['(the whole link: too long)']);
  // Not set is allowed only where the schema has no default.
  assert.deepEqual(decodeState(spec, '#model.norm=&train.recompute=').rejected, ['train.recompute']);
});

test('the Hub model of a link (hub=org/name@rev) is the page\'s to read: not a state key, not rejected, not "sets nothing"', () => {
  const hash = '#' + HUB_KEY + '=' + encodeURIComponent('Qwen/Qwen3-0.6B@main') + '&model.preset=&model.hidden_size=1024';
  const { state, rejected } = decodeState(spec, hash);
  assert.deepEqual(rejected, []);
  assert.equal(state['model.hidden_size'], '1024');
  assert.ok(!(HUB_KEY in state));
  assert.equal(linkSetsNothing('#' + HUB_KEY + '=a%2Fb'), false);
});

test('the configuration: the run mode\'s fields as numbers, GB inputs in bytes, nothing not set', () => {
  const { config, errors } = buildConfig(spec, example(), parse);
  assert.deepEqual(errors, []);
  assert.deepEqual(config.model, { params: 20e9, num_hidden_layers: 44, hidden_size: 6144, num_attention_heads: 64,
    learned_positions: 0, num_local_experts: 0, num_experts_per_tok: 0, shared_expert_intermediate_size: 0,
    sliding_window: 0, sliding_window_layers: 0 });
  assert.equal(config.parallel.gpus, 8);
  assert.equal(config.parallel.zero_stage, 1);
  assert.equal(config.train.seq_len, 2048);
  assert.equal(config.train.flash_attention, false);
  assert.equal(config.infer, undefined);                         // the other mode's section
  assert.deepEqual(config.gpu, { memory_bytes: 80e9, name: 'h100-sxm-80gb' });  // the catalogue's capacity_bytes (this stub's 80e9) and id
  assert.deepEqual(config.overhead, { misc_bytes: 287047680 });  // the schema's default CUDA context, sent as is
  const infer = buildConfig(spec, { ...example(), mode: 'infer', 'gpu.preset': 'custom', 'gpu.custom_gb': '48.5', 'overhead.misc_gb': '1.5' }, parse).config;
  assert.equal(infer.train, undefined);
  assert.equal(infer.parallel.zero_stage, undefined);            // a training-only field
  assert.deepEqual(infer.gpu, { memory_bytes: 48.5e9 });
  assert.deepEqual(infer.overhead, { misc_bytes: 1.5e9 });
  assert.equal(infer.infer.context_len, 8192);                    // the starting question's 8k context
});

test('an FSDP strategy is sent without the ZeRO stage: the core resolves the stage it names', () => {
  const { config } = buildConfig(spec, { ...example(), 'parallel.fsdp': 'full_shard' }, parse);
  assert.equal(config.parallel.fsdp, 'full_shard');
  assert.equal('zero_stage' in config.parallel, false);
});

test('text that is not a number, and GB sizes out of the schema\'s byte range, are errors naming the field and what it allows', () => {
  const { errors } = buildConfig(spec, { ...example(), 'parallel.gpus': 'abc', 'gpu.preset': 'custom', 'gpu.custom_gb': '0' }, parse);
  assert.deepEqual(errors, [
    { field: 'parallel.gpus', message: 'must be a whole number of GPUs from 1 to 1,048,576 (k = 1,000, M = 1,000,000)' },
    { field: 'gpu.custom_gb', message: 'must be a size such as 80, 80GB or 74.5GiB (a bare number is GB, 10⁹ bytes); K, M, B and T are counts, not sizes' },
  ]);
  assert.equal(buildConfig(spec, { ...example(), 'overhead.misc_gb': '-1' }, parse).errors[0].field, 'overhead.misc_gb');
  // Each field reads its own kind of number: a token count "8K" (= 8,192, as vLLM reads --max-model-len),
  // GPUs as a whole number, k and M being 1,000 and 1,000,000 ("2k" = 2,000; "2B" GPUs is refused), a size only with a
  // byte unit ("1.5M" is a count, not a GPU size); a bare GB number gets the unit.
  seen.length = 0;
  const read = buildConfig(spec, { ...example(), 'train.seq_len': '8K', 'gpu.preset': 'custom', 'gpu.custom_gb': '80', 'parallel.gpus': '2,048' }, parse);
  assert.deepEqual(read.errors, []);
  assert.equal(read.config.train.seq_len, 8192);
  assert.equal(read.config.parallel.gpus, 2048);
  assert.deepEqual(read.config.gpu, { memory_bytes: 80e9 });
  assert.deepEqual(read.parsed['train.seq_len'], { text: '8,192 tokens', note: '' });
  assert.deepEqual(read.parsed['gpu.custom_gb'], { text: '80,000,000,000 bytes (74.51 GiB)', note: '' });
  assert.ok(seen.some(([text, path]) => text === '80 GB' && path === 'gpu.memory_bytes'));
  assert.equal(buildConfig(spec, { ...example(), 'train.seq_len': '8k' }, parse).parsed['train.seq_len'].note, 'k is 1,000, as vLLM reads it; 8K is 8,192');
  assert.deepEqual(buildConfig(spec, { ...example(), 'parallel.gpus': '2B' }, parse).errors.map((e) => e.field), ['parallel.gpus']);
  assert.deepEqual(buildConfig(spec, { ...example(), mode: 'infer', 'infer.batch': '8k' }, parse).parsed['infer.batch'], { text: '8,000 sequences', note: '' });
  assert.deepEqual(buildConfig(spec, { ...example(), 'gpu.preset': 'custom', 'gpu.custom_gb': '1.5M' }, parse).errors.map((e) => e.field), ['gpu.custom_gb']);
  // Written as people write them: grouping commas, a unit on a GB input, an exponent.
  const written = buildConfig(spec, { ...example(), 'model.params': '7,000,000,000', 'gpu.preset': 'custom', 'gpu.custom_gb': '74.5GiB' }, parse);
  assert.deepEqual(written.errors, []);
  assert.equal(written.config.model.params, 7e9);
  assert.deepEqual(written.config.gpu, { memory_bytes: 79993765888 });  // 74.5 × 2^30
});

test('the value the core used: its resolved-config echo; the capacity as the core states it', () => {
  assert.equal(usedValue({ config: { parallel: { zero_stage: 3, fsdp: 'full_shard' } } }, 'parallel.zero_stage'), 3);
  assert.equal(usedValue({ config: { train: { seq_len: 2048 } } }, 'train.seq_len'), 2048);
  assert.equal(usedValue({ config: { train: {} } }, 'train.seq_len'), null);
  assert.equal(usedValue({}, 'train.seq_len'), null);
  assert.equal(capacityBytes({ gpu: { capacity_bytes: 141e9, fits: true } }), 141e9);
  assert.equal(capacityBytes({ per_gpu: {} }), 0);
});

test('a pasted config.json: depth counted without recursion, strings skipped; too deep is refused before JSON.parse', () => {
  assert.equal(jsonDepth('{"a": [1, {"b": "[[[{{{"}]}'), 3);
  assert.equal(jsonDepth('"\\"[["'), 0);
  assert.equal(jsonDepth('['.repeat(100000) + ']'.repeat(100000), MAX_JSON_DEPTH), MAX_JSON_DEPTH + 1);  // stops early
  assert.deepEqual(parseHfConfig('['.repeat(100000) + ']'.repeat(100000)),
    { error: { field: 'config.json', message: 'is nested deeper than 64 levels' } });
  assert.deepEqual(parseHfConfig('{"a":'.repeat(65) + '1' + '}'.repeat(65)).error.message, 'is nested deeper than 64 levels');
  assert.equal(parseHfConfig('{"a":'.repeat(64) + '1' + '}'.repeat(64)).error, undefined);
  assert.match(parseHfConfig('{"model_type": ').error.message, /^is not valid JSON \(/);
  assert.equal(parseHfConfig('[1]').error.message, 'must be a JSON object ({"model_type": …, "hidden_size": …})');
  assert.deepEqual(parseHfConfig('  '), { error: null });
  // The core's limits where the schema exports them.
  assert.equal(parseHfConfig('[[[1]]]', { max_json_depth: 2 }).error.message, 'is nested deeper than 2 levels');
  assert.equal(parseHfConfig('{"a": 1}', { max_config_bytes: 4 }).error.message, 'is longer than 4 characters');
  assert.deepEqual(parseHfConfig(' {"hidden_size": 4096} '), { text: '{"hidden_size":4096}', object: { hidden_size: 4096 } });
});

test('a link that sets nothing (the page then draws the answer computed at build time) decodes to the starting state', () => {
  const llama = modelFields(spec, { num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32 });
  const presetFields = (id) => (id === 'llama-3.1-8b' ? llama : id === 'other' ? { ...llama, 'model.hidden_size': '2048' } : null);
  const start = decodeState(spec, '', presetFields);
  assert.deepEqual(start.rejected, []);
  const nothing = ['', '#', '#embed=1', 'embed=1', '#embed=0', '#embed', '#embed=1&embed='];
  const something = ['#mode=infer', '#mode=train', '#parallel.gpus=2', '#model.preset=', '#model.preset=other',
    '#embed=1&infer.context_len=4096', '#unit=GB', '#evil=1', '#model.preset=gone', '#=', '#' + 'embed=1&'.repeat(600)];
  for (const hash of nothing) {
    assert.equal(linkSetsNothing(hash), true, hash);
    assert.deepEqual(decodeState(spec, hash, presetFields), start, hash);  // the same state, nothing rejected
  }
  for (const hash of something) assert.equal(linkSetsNothing(hash), false, hash);
  // These links give another state or reject something ('#mode=infer' restates the starting mode: drawn
  // from the core all the same, as every link is).
  for (const hash of something.filter((h) => h !== '#mode=infer')) {
    const decoded = decodeState(spec, hash, presetFields);
    assert.ok(decoded.rejected.length || JSON.stringify(decoded.state) !== JSON.stringify(start.state), hash);
  }
});

test("a pasted config.json as Python's json writes it: bare Infinity, -Infinity and NaN read, the text kept for the core", () => {
  // nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8's config.json holds "time_step_limit": [0.0, Infinity].
  const parsed = parseHfConfig('{"time_step_limit": [0.0, Infinity], "b": NaN, "c": -Infinity, "s": "Infinity, NaN"}');
  assert.equal(parsed.error, undefined);
  assert.deepEqual(parsed.object.time_step_limit, [0, 'Infinity']);
  assert.equal(parsed.object.b, 'NaN');
  assert.equal(parsed.object.c, '-Infinity');
  assert.equal(parsed.object.s, 'Infinity, NaN');  // words inside strings untouched
  assert.match(parsed.text, /\[0\.0, Infinity\]/);  // the core reads the original words
  // Other words stay invalid JSON, as do the words inside a longer token.
  for (const text of ['{"a": Infinityx}', '{"a": infinity}', '{"a": Inf}', '{"a": -NaNa}'])
    assert.match(parseHfConfig(text).error.message, /^is not valid JSON \(/, text);
  // An escaped quote does not end a string early.
  assert.deepEqual(quotePythonWords('{"a": "q\\" NaN"}'), { text: '{"a": "q\\" NaN"}', found: false });
});
