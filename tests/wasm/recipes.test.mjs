// The fine-tuning recipes through the JS API (mp.recipes() of dist/memplan.js, core/data/recipes.json):
// the stored list, each recipe a configuration the core reads, and the same list as the native CLI prints
// (`memplan recipes --json`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { load } from '../../dist/memplan.js';
import { printedJson } from './cli.mjs';

const mp = await load();

test('recipes(): full fine-tuning, LoRA, QLoRA and DoRA with their values, parsed once and frozen', () => {
  const recipes = mp.recipes();
  assert.equal(mp.recipes(), recipes);
  assert.ok(Object.isFrozen(recipes) && Object.isFrozen(recipes[0].values));
  assert.deepEqual(recipes.map((r) => r.id), ['full', 'lora', 'qlora', 'dora']);
  const qlora = recipes.find((r) => r.id === 'qlora');
  assert.equal(qlora.label, 'QLoRA r16 all-linear, checkpointing, paged 8-bit AdamW');
  assert.match(qlora.source, /^Dettmers et al\. 2023, QLoRA: Efficient Finetuning of Quantized LLMs §2–3/);
  assert.deepEqual(qlora.values, {
    'train.adapter_type': 'lora', 'train.adapter_rank': 16, 'train.adapter_targets': 'all-linear', 'train.base_dtype': 'nf4',
    'train.double_quant': true, 'train.recompute': 'full', 'train.optimizer': 'adam_8bit', 'train.paged_optimizer': true,
  });
  assert.deepEqual(recipes, printedJson('recipes', '--json').recipes);
});

test("a recipe's values are a configuration the core reads: each is a schema field of training", () => {
  const fields = new Map(mp.schema().fields.map((f) => [f.path, f]));
  for (const recipe of mp.recipes()) {
    const train = {};
    for (const [path, value] of Object.entries(recipe.values)) {
      assert.deepEqual(fields.get(path).modes, ['train'], `${recipe.id} ${path}`);
      train[path.slice('train.'.length)] = value;
    }
    const result = mp.estimate({ mode: 'train', model: { preset: 'llama-3.2-1b' }, train });
    for (const [path, value] of Object.entries(recipe.values)) assert.equal(result.config.train[path.slice(6)], value, `${recipe.id} ${path}`);
  }
});
