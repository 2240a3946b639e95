// memplan page — the update loop. Reads the form into the page state, asks the core for the answer
// (estimate(), on this thread: about a millisecond) and for the derived views (analyze(), in a worker
// with a time limit: analysis-client.js), and hands the results to the views. Every number shown comes
// from the core; the form itself is built from the core's schema.
//
// Signals for tests and tools, on #output: data-estimated counts rendered answers (verdict and
// breakdown); data-computed counts finished updates (answer and derived views, or their errors, or the
// time limit's message) and is removed while an update is pending. The performance mark
// "memplan:first-result" is set when the first answer is on screen (scripts/measure-budgets.mjs).
//
// The same bundle is the worker's script: in a worker (no document) it only serves analyze().
import { load } from './memplan.js';
import { $ } from './dom.js';
import { formSpec } from './schema.js';
import { buildConfig, decodeState, defaultState, encodeState, modelFields } from './state.js';
import { buildForm, filterPresets, form, readForm, showErrors, showModeAndGpu, writeForm } from './form.js';
import { renderBreakdown, renderModelSummary, renderVerdict, renderWarnings } from './breakdown.js';
import { renderDetails, renderLimits, renderSuggestions, renderZero } from './analysis-views.js';
import { renderChart } from './chart-view.js';
import { wireConfigImport } from './config-import.js';
import { analysisClient, serveAnalysis } from './analysis-client.js';
import { renderFinetune } from './finetune-view.js';
import { renderServing } from './serving-view.js';
import { renderCompare } from './compare-view.js';

/** The longest the derived views may compute before they are stopped with a message, in ms. */
export const ANALYSIS_LIMIT_MS = 2000;  // ordinary configurations take 10 to 20 ms
/** Pause after the last keystroke before recomputing, in ms. */
const TYPING_DEBOUNCE_MS = 60;

// The single-file build runs this bundle as an inline classic script: its text is the worker's script.
const INLINE_SCRIPT = typeof document !== 'undefined' && document.currentScript ? document.currentScript.textContent : null;

function spawnWorker() {
  if (INLINE_SCRIPT) {
    const url = URL.createObjectURL(new Blob([INLINE_SCRIPT], { type: 'text/javascript' }));
    const worker = new Worker(url);
    URL.revokeObjectURL(url);
    return worker;
  }
  return new Worker(import.meta.url, { type: 'module' });
}

let mp = null;
let spec = null;
let presets = [];
let embed = false;
let runAnalysis = null;
const presetCache = new Map();
let estimated = 0;
let computed = 0;
/** Counts changes of the form (inputs and updates): a result is current only if none came after it. */
let generation = 0;

/** The model object the core resolved for the pasted config.json now in the form (null when none). */
let pastedModel = null;
const presetModels = new Map();

/** A stored preset's model as the core resolves it: explicit keys, per-layer lists (null for an unknown id). */
function presetModel(id) {
  if (!presetModels.has(id)) {
    let model = null;
    if (presets.some((p) => p.id === id)) {
      try { model = mp.resolveModel({ model: { preset: id } }).model; } catch { model = null; }
    }
    presetModels.set(id, model);
  }
  return presetModels.get(id);
}

/** Model fields of a stored preset as the core resolves it (null for an unknown id). */
function presetFields(id) {
  if (!presetCache.has(id)) {
    const model = presetModel(id);
    presetCache.set(id, model ? modelFields(spec, model) : null);
  }
  return presetCache.get(id);
}

/** The form changed: the views may not show it until the next update finishes. Returns the change's number. */
function markPending() {
  delete $('output').dataset.computed;
  return ++generation;
}

/** The update `ticket` is finished; the signal is set only when no change came after it. */
function finished(ticket) {
  if (ticket === generation) $('output').dataset.computed = String(++computed);
}

/** The status line of the derived views: '' hides it. */
function viewsStatus(text, stale) {
  const status = $('analysis-status');
  status.textContent = text;
  status.hidden = !text;
  for (const section of document.querySelectorAll('section.extra')) section.classList.toggle('stale', stale);
}

function update() {
  const ticket = markPending();
  const state = readForm(spec, defaultState(spec));
  const preset = presets.find((p) => p.id === state['model.preset']);
  showModeAndGpu(state, preset, preset ? presetFields(preset.id) : null);
  history.replaceState(null, '', location.pathname + location.search + encodeState(spec, state, presetFields));
  $('share').href = location.href;
  const { config, errors } = buildConfig(spec, state, state['model.preset'] ? presetModel(state['model.preset']) : pastedModel);
  let result;
  if (!errors.length) {
    try {
      result = mp.estimate(config);
    } catch (error) {
      errors.push(...(error.errors || [{ field: 'config', message: String(error.message) }]));
    }
  }
  if (errors.length) {
    showErrors(errors);
    return finished(ticket);
  }
  showErrors([]);
  const unit = state.unit;
  renderVerdict(result, unit);
  renderWarnings(result);
  renderBreakdown(result, unit, state.mode);
  renderModelSummary(mp, spec, result, config, state, unit);
  renderFinetune(result, null, unit);
  renderServing(mp, result, null, unit);
  renderCompare(mp, config, unit);
  $('zero-section').hidden = state.mode !== 'train';  // the ZeRO stages coincide in inference
  $('output').classList.remove('stale');
  $('output').hidden = false;
  $('loading').hidden = true;
  $('output').dataset.estimated = String(++estimated);
  if (!performance.getEntriesByName('memplan:first-result').length) performance.mark('memplan:first-result');
  if (embed) return finished(ticket);
  runAnalysis(config).then((outcome) => {
    if (outcome.superseded || ticket !== generation) return;  // a newer input is pending or drawn
    if (outcome.analysis) {
      const analysis = outcome.analysis;
      renderLimits(spec, analysis, config);
      renderDetails(analysis.estimate, config, unit);
      renderZero(spec, analysis, config, unit);
      renderSuggestions(spec, analysis, unit);
      renderChart(spec, analysis, config, unit);
      renderFinetune(analysis.estimate, analysis, unit);
      renderServing(mp, analysis.estimate, analysis, unit);
      viewsStatus('', false);
    } else if (outcome.timedOut) {
      viewsStatus(`The views below (what fits, ZeRO stages, suggestions, chart) were stopped after ${ANALYSIS_LIMIT_MS / 1000} s: ` +
        'this configuration takes too long to analyze in the page (every pipeline stage is searched). The per-GPU answer above is complete; ' +
        '`memplan analyze` on the command line computes the rest.', true);
    } else {
      viewsStatus('The views below could not be computed: ' + outcome.errors.map((e) => `${e.field}: ${e.message}`).join('; '), true);
    }
    finished(ticket);
  });
}

let timer = 0;
function scheduleUpdate() {
  markPending();
  clearTimeout(timer);
  timer = setTimeout(update, TYPING_DEBOUNCE_MS);
}

function onInput(event) {
  const target = event.target;
  if (target.id === 'preset-search') return filterPresets(presets, mp.searchPresets);
  if (target.id === 'hf-config' || target.id === 'hf-file') return;  // config-import.js handles them
  if (target.name === 'model.preset' && target.value) { pastedModel = null; writeForm(presetFields(target.value) || {}); }
  if (event.type === 'change' && target.type !== 'text') {
    clearTimeout(timer);
    update();
  } else scheduleUpdate();
}

function applySuggestion(event) {
  const button = event.target.closest('button[data-field]');
  if (!button) return;
  const input = form().elements.namedItem(button.dataset.field);
  if (!input) return;
  if (input.type === 'checkbox') input.checked = button.dataset.value === 'true';
  else input.value = button.dataset.value;
  update();
}

function applyTheme(value) {
  if (value === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = value;
}

function showLink(rejected) {
  if (!rejected.length) return;
  const notice = $('notice');
  notice.textContent = `Some settings in the link were not understood and were replaced by defaults: ${rejected.join(', ')}.`;
  notice.hidden = false;
}

function start() {
  const query = new URLSearchParams(location.search);
  embed = query.get('embed') === '1' || new URLSearchParams(location.hash.slice(1)).get('embed') === '1';
  if (embed) document.body.classList.add('embed');
  $('theme').addEventListener('change', (e) => applyTheme(e.target.value));
  load().then((api) => {
    mp = api;
    spec = formSpec(mp.schema());
    buildForm(spec);
    presets = mp.presets();
    filterPresets(presets, mp.searchPresets);
    if (!embed) runAnalysis = analysisClient(spawnWorker, ANALYSIS_LIMIT_MS);
    form().addEventListener('input', onInput);
    form().addEventListener('change', onInput);
    form().addEventListener('submit', (e) => e.preventDefault());
    $('suggestions').addEventListener('click', applySuggestion);
    wireConfigImport(spec.limits, (text) => mp.resolveModel({}, { hfConfig: text }), (model) => {
      pastedModel = model;
      writeForm({ ...modelFields(spec, model), 'model.preset': '' });
      update();
    });
    // The link is read once the presets are known: it names a preset and the fields that differ from it.
    const { state, rejected } = decodeState(spec, location.hash, presetFields);
    showLink(rejected);
    writeForm(state);
    update();
  }).catch((error) => {
    $('loading').textContent = 'The calculator could not be loaded: ' + error.message;
  });
}

if (typeof document === 'undefined') serveAnalysis(self, load);
else start();
