// TypeScript declarations of dist/memplan-lite.js, the estimate-only API (hand-written; keep in step with
// web/memplan-lite.js). Its functions are those of memplan.js's Memplan, from the same core; the
// analyses are absent from its module and throw a MemplanError naming memplan.js.
import type { LoadOptions, Memplan } from './memplan.js';

export { MemplanError } from './memplan.js';

/** What the estimate-only module answers: Memplan's estimate, stored documents and number parser. */
export type MemplanLite = Pick<Memplan, 'estimate' | 'estimateJson' | 'schema' | 'presets' | 'presetNames' | 'gpus' | 'gpu' | 'searchGpus' |
  'recipes' | 'explanations' | 'parseQuantity' | 'parseField'>;

/** Loads the estimate-only module once; later calls return the same promise. */
export function load(options?: LoadOptions): Promise<MemplanLite>;
