// load({ wasmModule }): the .wasm compiled by the caller (index.html compiles it while app.js loads) is
// instantiated as it is, and gives the same answers as the module the loader fetches itself; a module
// that does not fit the factory's imports makes the load fail instead of leaving it pending.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { loadFastEstimator } from '../../dist/memplan.js';

const compile = async (name) => WebAssembly.compile(await readFile(new URL('../../dist/' + name, import.meta.url)));
const config = { mode: 'infer', model: { preset: 'llama-3.1-70b' }, parallel: { gpus: 2, tp: 2 }, infer: { batch: 8, context_len: 32768 } };

test('a module compiled by the caller gives the answers of the one the loader fetches', async () => {
  const given = await loadFastEstimator({ wasmModule: await compile('memplan-core.wasm') });
  const fetched = await loadFastEstimator();
  assert.deepEqual(given.estimate(config), fetched.estimate(config));
});

test('a module whose imports the factory does not provide makes the load fail', async () => {
  // A module importing x.none, a function the factory does not give.
  const other = new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 2, 10, 1, 1, 120, 4, 110, 111, 110, 101, 0, 0]));
  await assert.rejects(loadFastEstimator({ wasmModule: other }));
});
