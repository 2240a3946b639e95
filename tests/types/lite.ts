// web/memplan-lite.d.ts as docs/embedding.md and tests/wasm use it: the estimate-only module's
// functions are memplan.js's, with the same types.
import { load, MemplanError } from '../../web/memplan-lite.js';
import type { MemplanLite } from '../../web/memplan-lite.js';
import type { EstimateResult, GpuEntry } from '../../web/memplan.js';

declare function expect<T>(value: T): void;

const lite: MemplanLite = await load({ wasmUrl: 'memplan-estimate-core.wasm' });
const r: EstimateResult = lite.estimate({ mode: 'infer', model: { preset: 'llama-3.1-8b' }, infer: { context_len: 32768, batch: 4, engine: 'vllm' } },
  { recipe: undefined });
expect<number>(r.per_gpu.total);
expect<boolean | undefined>(r.serving?.starts);
expect<string>(lite.estimateJson('{"mode":"infer"}'));
expect<readonly GpuEntry[]>(lite.gpus());
expect<number | undefined>(lite.gpu('rtx-4090-24gb')?.capacity_bytes);
expect<string[]>(lite.searchGpus('4090'));
expect<number>(lite.schema().fields.length + lite.presets().length + lite.presetNames().length + lite.recipes().length);
expect<string>(lite.explanations().train[0]?.label ?? '');
expect<number>(lite.parseQuantity('80 GiB') + lite.parseField('90%', 'infer.gpu_memory_utilization_permille').value);
try {
  lite.estimate({ parallel: { gpus: 0 } });
} catch (e) {
  if (e instanceof MemplanError) expect<string | undefined>(e.field);
}
// @ts-expect-error the analyses are not in the estimate-only module
lite.analyze({});
// @ts-expect-error nor is the planner
lite.plan({ config: {}, gpu: 'h100-sxm-80gb' });
