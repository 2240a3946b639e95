// The JS API of web/memplan.d.ts as its tests (tests/wasm) and docs (docs/embedding.md, README.md) use
// it, written in TypeScript: `tsc -p tests/types` (scripts/test-web.sh) reads these lines against the
// declarations, so that a declared type that no longer fits what the API returns, or a function whose
// declaration lost an argument, fails the suite. Nothing here runs; `expect` only pins a type.
import { load, loadFastEstimator, MemplanError, wrap } from '../../web/memplan.js';
import type {
  Analysis, Breakdown, Checkpoint, CheckpointFromApi, CompareResult, Config, DayOne, EstimateResult, FastEstimate,
  FieldError, GpuEntry, GpuVerdict, HubModel, Memplan, ModelConfig, ModelPreset, PlanLayout, PlanRequest, PlanResult,
  PresetFit, ResolvedConfig, ResolvedModel, SafetensorsRange, Schema, SchemaField, ServingResult, StepPhases, StepTerm,
} from '../../web/memplan.js';

/** Pins the type of `value`: a line fails when the declared type is not assignable to T. */
declare function expect<T>(value: T): void;

const mp: Memplan = await load();
await load({ wasmUrl: new URL('https://example.com/memplan-core.wasm') });
await load({ wasmBinary: new Uint8Array(8) });
declare const compiled: WebAssembly.Module;
await load({ wasmModule: compiled });
expect<Memplan>(wrap({}));

// ---- the ZeRO card's functions (tests/wasm/api.test.mjs)
expect<number>(mp.modelStateBytes(7e9, 8, 1));   // 38500000000
expect<number>(mp.maxParams(80e9, 8, 1));        // 14545454545

// ---- estimate: training (docs/embedding.md), its parts, details, phases and verdict
const seven_b: Config = {
  model: { params: 7e9, num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32 },
  parallel: { gpus: 8, zero_stage: 1 }, gpu: { memory_bytes: 80e9 },
};
const r: EstimateResult = mp.estimate(seven_b);
const parts: Breakdown = r.per_gpu;
expect<number>(parts.total);
expect<number>(parts.weights + parts.gradients + parts.optimizer_states + parts.activations + parts.logits +
  parts.communication + parts.kv_cache + parts.dequant_workspace + parts.misc);
expect<number>(r.params);
expect<number>(r.data_parallel);
expect<number>(r.details.params_active);
expect<number>(r.details.params_on_gpu);
expect<number>(r.details.stage);
expect<number>(r.details.host_bytes_per_node);
expect<number>(r.details.quantization_overhead_bytes);
expect<number>(r.details.params_trainable);
expect<number>(r.details.paged_optimizer_bytes);
expect<number>(r.details.offloaded_activation_bytes);
expect<number>(r.details.param_breakdown.attention.active);
expect<number>(r.details.layer_kinds.attention.full + r.details.layer_kinds.mlp.moe);
expect<number | undefined>(r.details.weight_bytes_by_dtype['bf16']);
for (const t of r.details.layer_activations) expect<[string, number, string]>([t.name, t.bytes, t.note]);
const verdict: GpuVerdict | undefined = r.gpu;
if (verdict) {
  expect<boolean>(verdict.fits);
  expect<number>(verdict.needed_bytes - verdict.capacity_bytes + verdict.headroom_bytes - verdict.shortfall_bytes);
  expect<true | undefined>(verdict.approximate);
  expect<'engine' | undefined>(verdict.decided_by);
}
expect<boolean | undefined>(r.gpu?.fits);
const phases: StepPhases | undefined = r.details.phases;
if (phases) {
  expect<number>(phases[phases.peak]);
  expect<number>(phases.peak_bytes);
  expect<'allocated'>(phases.figure);
  expect<number>(phases.reserved_low_bytes + phases.reserved_typical_bytes + phases.reserved_high_bytes);
}
expect<'allocated' | 'reserved' | 'both' | 'none' | undefined>(r.details.framework?.logs);
for (const w of r.warnings) expect<[string, string]>([w.field, w.message]);
const errors: FieldError[] = r.errors;
expect<number>(errors.length);
for (const d of mp.estimate({ model: { preset: 'llama-3-8b' }, train: { framework: 'trl' } }).framework_defaults ?? [])
  expect<string>(`${d.field}=${d.value} (${d.framework}: ${d.upstream}, ${d.source})`);

// The configuration echo: every field, defaults filled in, null where not set.
const echo: ResolvedConfig = r.config;
expect<'train' | 'infer'>(echo.mode);
expect<number>(echo.parallel.zero_stage);
expect<number>(echo.train.seq_len);
expect<boolean>(echo.train.flash_attention);
expect<number | null>(echo.gpu.memory_bytes);
expect<string | null>(echo.model.model_type);
expect<number | null>(echo.infer.max_model_len);
expect<'full_shard' | 'shard_grad_op' | 'hybrid_shard' | 'hybrid_shard_zero2' | 'no_shard' | null>(echo.parallel.fsdp);
// An echo is a configuration again (its nulls aside): what a page stores to reproduce an answer.
expect<number>(mp.estimate({ mode: echo.mode, train: { seq_len: echo.train.seq_len } }).per_gpu.total);

// ---- estimate: serving with an engine (the page's serving panel, tests/wasm/engines.test.mjs)
const h100 = mp.gpus().find((g) => g.id === 'h100-sxm-80gb');
const served = mp.estimate({ mode: 'infer', model: { preset: 'llama-3.1-8b' }, infer: { context_len: 8192, engine: 'vllm' },
  gpu: { memory_bytes: h100?.capacity_bytes ?? 80e9, name: h100?.name } });
expect<number>(served.per_gpu.kv_cache);
expect<number>(served.details.kv_cache_bytes_per_token);
expect<number>(served.details.prefill_chunk_tokens);
const s: ServingResult | undefined = served.serving;
if (s) {
  expect<'vllm' | 'sglang' | 'trtllm'>(s.engine);
  expect<boolean>(s.starts);
  expect<string | null>(s.refusal);
  expect<number>(s.kv_capacity_tokens + s.num_blocks * s.block_size + s.budget_bytes);
  expect<number>(s.max_concurrency.numerator / s.max_concurrency.denominator);
  expect<number>(s.max_concurrent_requests);
  for (const row of s.breakdown ?? []) expect<[string, number, boolean]>([row.label, row.bytes, row.measured]);
  expect<string | undefined>(s.release_modelled);
  // Every budget term mp.engines() names is a number of the serving result.
  for (const t of mp.engines().budget_terms) expect<number>(s[t.key]);
}

// A Hugging Face config.json (object or text) replaces the model; a recipe sets its values over the configuration.
const configJson: Record<string, unknown> = { model_type: 'llama', num_hidden_layers: 32, hidden_size: 4096,
  num_attention_heads: 32, intermediate_size: 11008, vocab_size: 32000 };
expect<number>(mp.estimate({ mode: 'infer', infer: { context_len: 4096 } }, { hfConfig: configJson }).per_gpu.kv_cache);
expect<number>(mp.estimate({ model: { preset: 'qwen3-8b' } }, { recipe: 'qlora', hfConfig: JSON.stringify(configJson) }).per_gpu.total);
expect<EstimateResult>(mp.estimate(JSON.stringify(seven_b)));
expect<string>(mp.estimateJson('{"mode":"infer"}', JSON.stringify(configJson)));
expect<string>(mp.analyzeJson(JSON.stringify(seven_b)));
const qlora = mp.recipes().find((recipe) => recipe.id === 'qlora');
if (qlora) {
  const train = Object.fromEntries(Object.entries(qlora.values).map(([path, v]) => [path.slice('train.'.length), v]));
  expect<EstimateResult>(mp.estimate({ mode: 'train', model: { preset: 'llama-3.2-3b' }, train }));
  expect<string>(`${qlora.label} (${qlora.source})`);
}

// ---- errors: MemplanError names the field
try {
  mp.estimate({ parallel: { tp: 0 } });
} catch (e) {
  if (e instanceof MemplanError) {
    expect<'MemplanError'>(e.name);
    expect<string | undefined>(e.field);
    for (const fe of e.errors) expect<string>(fe.field + ': ' + fe.message);
    expect<Error>(e);
  }
}

// ---- analyze: the page's derived views (tests/wasm/api.test.mjs, one-answer.test.mjs)
const a: Analysis = mp.analyze({ model: { preset: 'llama-2-7b' }, parallel: { gpus: 8, zero_stage: 3 }, train: { seq_len: 4096, adapter_type: 'lora' },
  gpu: { memory_bytes: 80e9 } });
expect<EstimateResult>(a.estimate);
for (const stage of a.stages) {
  expect<0 | 1 | 2 | 3>(stage.stage);
  expect<number | null>(stage.total);
  expect<boolean | null>(stage.fits);
  expect<number | null>(stage.fewest_gpus);
}
for (const suggestion of a.suggestions) {
  expect<string>(suggestion.field);
  expect<number | boolean | string>(suggestion.to);
  expect<number>(suggestion.saving_bytes);
  expect<boolean | null | undefined>(suggestion.serves);
  expect<number | boolean | string | undefined>(suggestion.also['parallel.gpus']);
}
expect<number | undefined>(a.fewest?.gpus);
expect<number>(a.plan.changes.length);
expect<boolean | null>(a.plan.fits);
for (const point of a.sweep) expect<number | null>(point.totals[3]);
expect<number | null>(a.limits.max_micro_batch);
expect<number | null>(a.limits.max_seq_len);
expect<number | null | undefined>(a.limits.max_adapter_rank);
expect<number | null>(a.limits.context_limit_tokens);
expect<boolean>(a.limits.beyond_context_limit);
const servedAnalysis = mp.analyze({ mode: 'infer', model: { preset: 'llama-3.1-8b' }, infer: { engine: 'vllm' }, gpu: { memory_bytes: 80e9 } });
expect<number | null>(servedAnalysis.limits.max_batch);
expect<number | null>(servedAnalysis.limits.max_context_len);
for (const point of servedAnalysis.context_sweep ?? []) {
  expect<number>(point.context_len);
  expect<number | null>(point.total_bytes);
  expect<number | null>(point.kv_cache_bytes);
  expect<boolean | null>(point.fits);
  expect<boolean>(point.beyond_context_limit);
}
expect<number | undefined>(servedAnalysis.serving?.max_concurrent_requests);
expect<number | undefined>(servedAnalysis.serving?.longest_max_model_len);
expect<boolean | undefined>(servedAnalysis.serving?.longest_beyond_context_limit);

// ---- the layout planner and its step time (tests/wasm/api.test.mjs)
const request: PlanRequest = { config: { mode: 'train', model: { preset: 'llama-3-8b' }, train: { seq_len: 4096 } },
  gpu: 'h100-sxm-80gb', min_gpus: 1, max_gpus: 8, global_batch: 64, top_n: 3 };
const p: PlanResult = mp.plan(request);
expect<'train' | 'infer'>(p.mode);
expect<number>(p.considered - p.fitting + p.gpu_memory_bytes);
expect<number[]>(p.gpu_counts);
expect<boolean>(p.done);
expect<string>(p.empty_reason);
for (const w of p.warnings) expect<string>(w.field);
for (const rejected of p.rejected) expect<[string, number, string]>([rejected.reason, rejected.count, rejected.example]);
for (const row of p.by_gpus) {
  const best: PlanLayout | null = row.best;
  expect<number>(row.gpus + row.considered + row.fitting + (best?.total_bytes ?? 0));
}
for (const l of p.top) {
  const terms: StepTerm[] = l.terms ?? [];
  const sum = terms.reduce((total, t) => total + t.seconds, 0);
  expect<number>(sum - (l.step_s ?? 0));
  for (const t of terms) expect<[string, number, string]>([t.name, t.busy_seconds, t.how]);
  expect<number | undefined>(l.mfu);
  expect<number | undefined>(l.tokens_per_s_per_gpu);
  expect<string | undefined>(l.bottleneck);
  // A layout is a configuration again: its memory is mp.estimate()'s for it.
  const e = mp.estimate({ ...request.config, parallel: { gpus: l.gpus, tp: l.tp, pp: l.pp, cp: l.cp, ep: l.ep, virtual_stages: l.virtual_stages,
    zero_stage: l.zero_stage, sequence_parallel: l.tp > 1 }, train: { seq_len: 4096, recompute: l.recompute, micro_batch: l.micro_batch },
  gpu: { memory_bytes: h100?.capacity_bytes } });
  expect<number | undefined>(e.gpu?.needed_bytes);
}
const servingPlan = mp.plan({ config: { mode: 'infer', model: { preset: 'llama-3.1-8b' }, infer: { context_len: 8192, batch: 32 } },
  gpu: 'h100-sxm-80gb', gpus: 8 });
for (const l of servingPlan.top) {
  expect<number | undefined>(l.decode_tokens_per_s_per_gpu);
  expect<number | undefined>(l.prefill_s);
  expect<number | undefined>(l.replicas);
  expect<EstimateResult>(mp.estimate({ mode: 'infer', infer: { weight_dtype: l.weight_dtype, kv_dtype: l.kv_dtype } }));
}
for (const step of mp.planSteps(request)) {
  expect<PlanResult>(step);
  if (!step.done) break;
}

// ---- comparison, models that fit, search, resolved models
const c: CompareResult = mp.compare({ model: { preset: 'llama-2-7b' }, parallel: { gpus: 8, zero_stage: 3 } });
expect<number | undefined>(c.memplan['total_bytes']);
for (const tool of c.tools) {
  expect<number | null>(tool.figure);
  expect<boolean>(tool.expressible);
  for (const term of tool.terms) expect<number>(term.tool_bytes - term.memplan_bytes);
}
const fits: PresetFit[] = mp.presetFits({ mode: 'infer', infer: { context_len: 8192 }, gpu: { memory_bytes: 80e9 } });
for (const f of fits) expect<[string, number, boolean | null, boolean]>([f.id, f.total_bytes, f.fits, f.beyond_context_limit]);
expect<string[]>(mp.searchPresets('llama3 70b'));
expect<string[]>(mp.searchGpus('h100 sxm'));
const resolved: ResolvedModel = mp.resolveModel({ model: { preset: 'mixtral-8x7b' } });
const resolvedModel: ModelConfig = resolved.model;
expect<number | undefined>(resolvedModel.num_local_experts);
expect<boolean | undefined>(mp.resolveModel({ model: { preset: 'qwen3-8b' } }).model.qk_norm);
expect<number | null>(resolved.params);
expect<number | null>(mp.resolveModel({}, { hfConfig: configJson }).params_active);
// The model a resolution gives is a configuration's model again.
expect<EstimateResult>(mp.estimate({ mode: 'infer', model: resolved.model }));

// ---- stored documents: presets, GPUs, schema, recipes, explanations, engines, frameworks
const presets: readonly ModelPreset[] = mp.presets();
for (const preset of presets) {
  expect<string>(preset.id + preset.name + preset.source);
  expect<string | undefined>(preset.config.model_type);
  expect<number | undefined>(preset.published_params);
  expect<number>(preset.params - preset.params_active);
  expect<number>(preset.param_breakdown.experts.total);
  expect<number>(preset.layer_kinds.attention.sliding);
  expect<number>(preset.kv_cache_bytes_per_token + preset.state_bytes_per_sequence);
}
for (const n of mp.presetNames()) expect<string>(n.id + n.name + n.source);
const gpus: readonly GpuEntry[] = mp.gpus();
for (const g of gpus) {
  expect<number>(g.capacity_bytes);
  expect<number | null>(g.usable_bytes);
  expect<'NVIDIA' | 'AMD' | 'Intel' | 'Apple'>(g.vendor);
  expect<readonly string[]>(g.aliases);
  if (g.perf) {
    expect<number>(g.perf.dense_bf16_tflops + g.perf.dense_fp8_tflops + g.perf.hbm_gb_per_s + g.perf.nvlink_gb_per_s + g.perf.scale_out_gb_per_s);
    expect<string | undefined>(g.perf.step_time_validated);
  }
}
const one = mp.gpu('rtx-4090-24gb');
expect<number | undefined>(one?.capacity_bytes);
const schema: Schema = mp.schema();
expect<1>(schema.version);
expect<number | undefined>(schema.limits['max_gpu_count']);
const field: SchemaField | undefined = schema.fields.find((f) => f.path === 'infer.engine');
expect<readonly string[] | undefined>(field?.choices);
expect<number | boolean | string | null | undefined>(field?.default);
expect<string | undefined>(schema.fields.find((f) => f.path === 'infer.gpu_memory_utilization_permille')?.default_text);
expect<string>(mp.explanations().infer.find((row) => row.key === 'kv_cache')?.formula ?? '');
for (const e of mp.engines().engines) expect<string>(e.id + e.share_field + e.share_flag);
const band = mp.frameworks().reserved_band;
expect<number>(band.low_permille + band.median_permille + band.high_permille + band.measurements);
for (const f of mp.frameworks().frameworks) expect<'allocated' | 'reserved' | 'both' | 'none'>(f.logs);

// ---- numbers as people write them
expect<number>(mp.parseQuantity('80 GiB'));
expect<number>(mp.parseQuantity('8B', 'model.params', 2 ** 49));
const read = mp.parseField('32K', 'infer.context_len');
expect<[number, string, string]>([read.value, read.text, read.note]);

// ---- the Hugging Face Hub (tests/wasm/hub.test.mjs)
const hub: HubModel = mp.hubModel('Qwen/Qwen3-0.6B@main');
expect<string>(hub.files_url + 'config.json');
expect<number>(hub.limits.timeout_ms + hub.limits.max_config_bytes);
declare const firstBytes: Uint8Array;
const range: SafetensorsRange = mp.safetensorsRange(firstBytes, 'bytes 0-7/1503300115', 'model.safetensors');
expect<string>(range.range);
expect<number | null>(range.file_bytes);
expect<SafetensorsRange>(mp.safetensorsRange([0xff, 0xe0, 0xf5, 0x05, 0, 0, 0, 0], null, 'f'));
expect<string[]>(mp.safetensorsIndex('{"weight_map": {}}'));
declare const headerText: string;
const headers = [{ file: 'model.safetensors', length: 35339, header: headerText }];
const checkpoint: Checkpoint = mp.checkpointHeaders(JSON.stringify(configJson), headers);
expect<Record<string, { values: number; bytes: number }>>(checkpoint.stored.by_dtype);
expect<string | undefined>(checkpoint.parts.find((part) => part.part === 'output')?.note);
expect<number>(checkpoint.unexplained + checkpoint.unexplained_bytes);
const fromApi: CheckpointFromApi = mp.checkpointApi(configJson, '{"safetensors": {"parameters": {"BF16": 751632384}}}');
expect<'stored' | 'memplan' | 'neither'>(fromApi.larger);
expect<number | null>(fromApi.api_total);
const dayOne: DayOne = mp.dayOneHeaders({ ...configJson, model_type: 'qwen9' }, headers);
if (dayOne.model) {
  expect<number | undefined>(dayOne.model.stored_weight_bytes);
  expect<boolean | undefined>(mp.estimate({ mode: 'infer', model: dayOne.model, gpu: { memory_bytes: 24e9 } }).gpu?.approximate);
}
expect<string>(dayOne.assumptions[0] ?? '');

// ---- the fast estimator (docs/embedding.md, tests/wasm/fast.test.mjs)
const fast = await loadFastEstimator();
for (const gpuCount of [8, 16, 32, 64]) {
  const answer: FastEstimate = fast.estimate({ model: { preset: 'llama-3-70b' }, parallel: { gpus: gpuCount, tp: 8, zero_stage: 3 },
    gpu: { memory_bytes: 80e9 } });
  expect<boolean | undefined>(answer.gpu?.fits);
  expect<number>(answer.per_gpu.total + answer.params + answer.data_parallel);
}
