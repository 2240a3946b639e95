// web/memplan-estimate.d.ts as docs/embedding.md uses it: the element <memplan-estimate>, its
// properties and its memplan-change event.
import '../../web/memplan-estimate.js';
import { MemplanEstimate } from '../../web/memplan-estimate.js';
import type { MemplanAttributeError } from '../../web/memplan-estimate.js';

declare function expect<T>(value: T): void;

const card = document.querySelector('memplan-estimate');
if (card) {
  expect<MemplanEstimate>(card);
  card.addEventListener('memplan-change', (e) => expect<number>(e.detail.per_gpu.total));
  card.setAttribute('gpus', '16');
  await card.updateComplete;
  expect<number | undefined>(card.result?.per_gpu.total);
  expect<boolean | undefined>(card.result?.gpu?.fits);
  for (const error of card.errors) expect<[string | null, string]>([error.attribute, error.message]);
  const first: MemplanAttributeError | undefined = card.errors[0];
  expect<string | null | undefined>(first?.attribute);
  // @ts-expect-error result is read-only: the element computes it from its attributes
  card.result = null;
}
const made = document.createElement('memplan-estimate');
expect<MemplanEstimate>(made);
expect<string[]>(MemplanEstimate.observedAttributes);
