// <memplan-estimate> — TypeScript declarations of dist/memplan-estimate.js (hand-written; keep in step
// with web/memplan-estimate.js). Importing the module defines the element.
import type { EstimateResult } from './memplan.js';

/** One attribute the element could not use, with the core's message (field path and allowed range). */
export interface MemplanAttributeError {
  /** The attribute's name ("gpus"), or null for a failure of the module itself. */
  attribute: string | null;
  message: string;
}

export class MemplanEstimate extends HTMLElement {
  static readonly observedAttributes: string[];
  /** The core's result (mp.estimate) for the current attributes; null while loading or when invalid. */
  readonly result: EstimateResult | null;
  /** Attribute errors of the current attributes; empty when the estimate succeeded. */
  readonly errors: MemplanAttributeError[];
  /** Settles once the element shows its current attributes. */
  readonly updateComplete: Promise<void>;
}

declare global {
  interface HTMLElementTagNameMap {
    'memplan-estimate': MemplanEstimate;
  }
  interface HTMLElementEventMap {
    /** Fired (bubbling, composed) after every successful estimate; `detail` is the result. */
    'memplan-change': CustomEvent<EstimateResult>;
  }
}
