// memplan page — the training step's peak: the live (allocated) bytes of each phase of one step as the
// core counts them (estimate().details.phases), the phase that reaches the peak, the caching allocator's
// reserved peak as the core's range, and which of the two the named framework's log prints
// (details.framework, with its pinned version and log line from mp.frameworks()). Every number is the
// core's; nothing is computed here but the display.
import { $, el } from './dom.js';
import { formatBytes, formatExactBytes } from './format.js';

const PHASES = [
  ['forward_end', 'End of forward'],
  ['loss_backward', 'Start of backward (logits and their gradient)'],
  ['layer_backward', 'Backward of a layer'],
  ['optimizer_step', 'Optimizer step'],
];

/** The one-line summary under the verdict: the step's allocated peak, the reserved range, what the framework's log prints. */
export function stepPeakText(result, unit) {
  const d = result && result.details;
  const ph = d && d.phases;
  if (!ph) return '';
  const f = d.framework;
  const phase = PHASES.find((p) => p[0] === ph.peak);
  const reserved = ph.reserved_low_bytes === ph.reserved_high_bytes
    ? formatBytes(ph.reserved_low_bytes, unit)
    : `${formatBytes(ph.reserved_low_bytes, unit)} to ${formatBytes(ph.reserved_high_bytes, unit)}`;
  const log = !f || f.id === 'none' ? ' No framework named: memplan\'s own conventions.'
    : f.logs === 'none' ? ` ${f.label} prints neither.`
      : f.logs === 'both' ? ` ${f.label} prints both.`
        : ` ${f.label} prints the ${f.logs} peak.`;
  return `Step peak: ${formatBytes(ph.peak_bytes, unit)} allocated (${phase ? phase[1].toLowerCase() : ph.peak}); ` +
    `reserved by PyTorch's caching allocator ${reserved}.${log}`;
}

/**
 * Renders the step-peak section and the line under the verdict (training; cleared in inference);
 * `frameworks`: mp.frameworks() (the version and log line of each train.framework value).
 */
export function renderStepPeak(result, unit, frameworks = null) {
  const line = $('step-peak');
  const text = result && result.config && result.config.mode === 'train' ? stepPeakText(result, unit) : '';
  if (line.textContent !== text) line.textContent = text;
  line.hidden = !text;
  if (!text) return;
  const ph = result.details.phases;
  const f = result.details.framework;
  const rows = PHASES.map(([key, label]) => {
    const tr = el('tr', null, { 'data-phase': key });
    if (key === ph.peak) tr.className = 'peak';
    tr.append(el('th', key === ph.peak ? `${label} — the peak` : label, { scope: 'row' }),
      el('td', formatBytes(ph[key], unit), { class: 'num', title: formatExactBytes(ph[key]), 'data-value': String(ph[key]) }));
    return tr;
  });
  const reserved = el('tr', null, { 'data-phase': 'reserved' });
  reserved.append(el('th', 'Reserved at the peak (range)', { scope: 'row' }),
    el('td', `${formatBytes(ph.reserved_low_bytes, unit)} – ${formatBytes(ph.reserved_high_bytes, unit)}`,
      { class: 'num', title: `${formatExactBytes(ph.reserved_low_bytes)} – ${formatExactBytes(ph.reserved_high_bytes)}` }));
  rows.push(reserved);
  $('step-phases').tBodies[0].replaceChildren(...rows);
  const listed = frameworks && f ? frameworks.frameworks.find((x) => x.id === f.id) : null;
  const note = !f || f.id === 'none'
    ? 'No framework named: the allocated figures are torch.cuda.max_memory_allocated(); name the framework to see which figure its log prints.'
    : `${f.label} (${listed ? listed.version : 'version not listed'}): its log prints ` +
      (f.logs === 'none' ? 'no peak' : f.logs === 'both' ? 'both peaks' : `the ${f.logs} peak`) +
      `${f.log_unit ? ` in ${f.log_unit}` : ''}${listed ? `: ${listed.log_text}` : ''}.`;
  $('step-framework').textContent = note;
}
