// The Hugging Face Hub bindings through the shipped module (dist/memplan.js): the model id typed, the
// range of a safetensors header, an index's shards, the headers reconciled with memplan's count (the
// figures of `memplan checkpoint` over tests/data/hf_cache) and the Hub API's per-dtype counts.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { load, MemplanError } from '../../dist/memplan.js';
import { load as loadLite } from '../../dist/memplan-lite.js';

const mp = await load();
const data = new URL('../data/', import.meta.url);
const snapshot = new URL('hf_cache/models--Qwen--Qwen3-0.6B/snapshots/c1899de289a04d12100db370d81485cdf75e47ca/', data);
const config = await readFile(new URL('config.json', snapshot), 'utf8');
const file = await readFile(new URL('model.safetensors', snapshot));

test('hubModel reads org/name, @revision and links into the addresses to fetch, with the core\'s bounds', () => {
  const m = mp.hubModel('https://huggingface.co/Qwen/Qwen3-0.6B/blob/refs%2Fpr%2F3/config.json');
  assert.equal(m.id, 'Qwen/Qwen3-0.6B');
  assert.equal(m.revision, 'refs/pr/3');
  assert.equal(m.link, 'Qwen/Qwen3-0.6B@refs/pr/3');
  assert.equal(m.files_url, 'https://huggingface.co/Qwen/Qwen3-0.6B/resolve/refs%2Fpr%2F3/');
  assert.equal(m.api_url, 'https://huggingface.co/api/models/Qwen/Qwen3-0.6B/revision/refs%2Fpr%2F3');
  assert.deepEqual(m.limits, { timeout_ms: 15000, parallel: 4, max_reply_bytes: 67108864, max_config_bytes: 8388608 });
  assert.equal(mp.hubModel('Qwen/Qwen3-0.6B').link, 'Qwen/Qwen3-0.6B');
  assert.throws(() => mp.hubModel('a/b/c'), (e) => e instanceof MemplanError && e.field === 'hub.model' && /not a Hub model id/.test(e.message));
  assert.throws(() => mp.hubModel('https://elsewhere.example/org/name'), /hub.model: is a link to another site than huggingface.co/);
});

test('safetensorsRange takes the first 8 bytes as they came (bytes above 127 unchanged) and bounds the header', () => {
  const r = mp.safetensorsRange(file.subarray(0, 8), 'bytes 0-7/1503300115', 'model.safetensors');
  assert.deepEqual(r, { length: 35339, range: 'bytes=8-35346', file_bytes: 1503300115 });
  // Every byte above 127 crosses the boundary as one byte (embind's strings would be UTF-8).
  const high = Uint8Array.from([0xff, 0xe0, 0xf5, 0x05, 0, 0, 0, 0]);  // 0x05F5E0FF = 99,999,999
  assert.equal(mp.safetensorsRange(high, null, 'f').length, 99999999);
  const over = Uint8Array.from([0x01, 0xe1, 0xf5, 0x05, 0, 0, 0, 0]);  // 100,000,001
  assert.throws(() => mp.safetensorsRange(over, '', 'model-00001-of-00002.safetensors'),
    { message: 'model-00001-of-00002.safetensors: states a header of 100000001 bytes; a safetensors header has 2 to 100000000 bytes' });
  assert.throws(() => mp.safetensorsRange(file.subarray(0, 8), 'bytes 0-7/9000', 'model.safetensors'), /holds only 9000 bytes/);
});

test('checkpointHeaders gives memplan checkpoint\'s figures; a truncated header is named with its file', async () => {
  const header = file.subarray(8).toString('utf8');
  const r = mp.checkpointHeaders(config, [{ file: 'model.safetensors', length: 35339, header }]);
  assert.equal(r.params, 596049920);
  assert.deepEqual(r.stored.by_dtype, { BF16: { values: 751632384, bytes: 1503264768 } });
  assert.equal(r.stored.tensors, 311);
  assert.equal(r.unexplained, 0);
  assert.match(r.parts.find((p) => p.part === 'output').note, /tie_word_embeddings/);
  assert.throws(() => mp.checkpointHeaders(config, [{ file: 'model.safetensors', length: 35339, header: header.slice(0, 100) }]),
    { message: 'model.safetensors: states a header of 35339 bytes but 100 bytes came (a truncated reply)' });
  const index = await readFile(new URL('hf_cache/qwen3-0.6b-sharded/model.safetensors.index.json', data), 'utf8');
  assert.deepEqual(mp.safetensorsIndex(index), ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']);
  const elsewhere = await readFile(new URL('hub/index-elsewhere.json', data), 'utf8');
  assert.throws(() => mp.safetensorsIndex(elsewhere),
    { message: "model.safetensors.index.json: weight_map.model.embed_tokens.weight names https://elsewhere.example/model-00001-of-00002.safetensors, which is not a file of the model's folder" });
});

test('checkpointApi: the API\'s per-dtype counts at their widths beside memplan\'s count', async () => {
  const api = await readFile(new URL('hub/qwen3-0.6b.api.json', data), 'utf8');
  const r = mp.checkpointApi(config, api);
  assert.equal(r.params, 596049920);
  assert.deepEqual(r.stored, { values: 751632384, bytes: 1503264768, by_dtype: { BF16: { values: 751632384, bytes: 1503264768 } } });
  assert.equal(r.difference, 155582464);
  assert.equal(r.larger, 'stored');
  assert.throws(() => mp.checkpointApi(config, '<html>'), /api: is not a JSON object/);
});

test('dayOneHeaders: a config.json no family counts, its model from the header fetched, every assumption named', () => {
  // Qwen3-0.6B's real config as a family memplan does not know (tests/core/io/test_day_one.cpp builds the same).
  const renamed = { ...JSON.parse(config), model_type: 'qwen9', architectures: ['Qwen9ForCausalLM'], fancy_gate: true };
  const headers = [{ file: 'model.safetensors', length: 35339, header: file.subarray(8).toString('utf8') }];
  const r = mp.dayOneHeaders(JSON.stringify(renamed), headers);
  assert.equal(r.model.stored_weight_bytes, 1192099840);  // the tied lm_head.weight left out, as engines skip it
  assert.equal(r.model.num_hidden_layers, 28);
  assert.equal(r.stored.tensors, 311);
  assert.ok(r.assumptions[0].startsWith('day-one estimate: model_type qwen9 is not counted by memplan\'s families'), r.assumptions[0]);
  // The model it gives is estimated as approximate, its weights the stored bytes.
  const e = mp.estimate({ mode: 'infer', model: r.model, gpu: { memory_bytes: 24e9 } });
  assert.equal(e.per_gpu.weights, 1192099840);
  assert.equal(e.gpu.approximate, true);
  delete renamed.num_hidden_layers;
  assert.throws(() => mp.dayOneHeaders(renamed, headers), (e) => e instanceof MemplanError && e.field === 'hf_config.num_hidden_layers');
  // A config the families read is theirs (its count is exact): refused naming hf_config.
  assert.throws(() => mp.dayOneHeaders(config, headers), (e) => e.field === 'hf_config');
  assert.throws(() => mp.dayOneHeaders(JSON.stringify({ ...JSON.parse(config), model_type: 'qwen9' }), [{ file: 'model.safetensors', length: 35339, header: '{' }]),
    (e) => e instanceof MemplanError && /^model\.safetensors/.test(e.message));
});

test('the estimate-only module has no Hub bindings and says so', async () => {
  const lite = await loadLite();
  assert.throws(() => lite.hubModel('Qwen/Qwen3-0.6B'), /hubModel is not in the estimate-only module/);
  assert.throws(() => lite.checkpointHeaders(config, []), (e) => e instanceof MemplanError && e.field === 'checkpointHeaders');
});

test('the Hub bindings are declared in memplan.d.ts with their result types', async () => {
  const types = await readFile(new URL('../../dist/memplan.d.ts', import.meta.url), 'utf8');
  for (const line of ['hubModel(text: string): HubModel;', 'safetensorsIndex(text: string, file?: string): string[];',
    'checkpointApi(hfConfig: string | object, apiReply: string | object): CheckpointFromApi;',
    'dayOneHeaders(hfConfig: string | object, headers: { file: string; length: number; header: string }[]): DayOne;', 'export interface DayOne {',
    'export interface HubModel {', 'export interface Checkpoint {', 'export interface SafetensorsRange {'])
    assert.ok(types.includes(line), line);
});
