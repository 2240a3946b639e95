// memplan — the estimate-only JavaScript API (dist/memplan-lite.js): the WebAssembly core without the
// analyses, for pages that show answers rather than search (the <memplan-estimate> element):
//   import { load } from './memplan-lite.js';
//   const mp = await load();
//   mp.estimate({ model: { preset: 'llama-3.1-8b' }, mode: 'infer' });
// It has estimate, estimateJson, schema, presets, presetNames, gpus, gpu, searchGpus, recipes, explanations, parseQuantity and parseField,
// exactly as memplan.js has them (the same core sources); the analyses (analyze, compare, presetFits,
// searchPresets, resolveModel, engines, frameworks, the ZeRO card, the Hugging Face Hub readers) throw a MemplanError naming memplan.js.
import createMemplanEstimateCore from './memplan-estimate-core.js';
import { MemplanError, coreLoader } from './memplan-api.js';

export { MemplanError };

/** Loads the estimate-only module once; later calls return the same promise. Options: {wasmBinary, wasmUrl}. */
export const load = coreLoader(createMemplanEstimateCore, () => new URL('./memplan-estimate-core.wasm', import.meta.url)).load;
