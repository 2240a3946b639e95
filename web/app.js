// memplan page — the update loop. Reads the form into the page state, asks the core for the answer
// (estimate(), on this thread: about a millisecond) and for the derived views (analyze(), in a worker
// with a time limit: analysis-client.js), and hands the results to the views. Every number shown comes
// from the core; the form itself is built from the core's schema.
//
// Signals for tests and tools, on #output: data-estimated counts rendered answers (verdict and
// breakdown); data-computed counts finished updates (answer and derived views, or their errors, or the
// time limit's message) and is removed while an update is pending; data-early says whether an early
// answer was drawn ("drawn": the one computed at build time, before the core loaded, or a link's, from
// the core before the form is built) and whether the form's first answer was the same ("confirmed" or
// "stale"; "superseded" when a link was typed meanwhile; first-result.js). The performance mark
// "memplan:first-result" is set when the first answer is on screen, early or the form's, and
// "memplan:first-estimate" when the form's first answer is (scripts/measure-budgets.mjs).
//
// The same bundle is the worker's script: in a worker (no document) it only serves analyze().
import { load } from './memplan.js';
import { $ } from './dom.js';
import { formSpec } from './schema.js';
import { HUB_KEY, PIN_KEY, buildConfig, decodeState, defaultState, encodeState, linkSetsNothing, modelFields } from './state.js';
import { buildForm, filterGpus, filterPresets, form, readForm, showErrors, showModeAndGpu, showParsed, writeForm } from './form.js';
import { clearModelSummary, renderBreakdown, renderModelSummary, renderVerdict, renderWarnings } from './breakdown.js';
import { renderDetails, renderLimits, renderSuggestions, renderZero } from './analysis-views.js';
import { renderChart, wireChartReadout } from './chart-view.js';
import { wireConfigImport } from './config-import.js';
import { hubLink, wireHub } from './hub.js';
import { analysisClient, serveAnalysis } from './analysis-client.js';
import { renderFinetune, wireFinetune } from './finetune-view.js';
import { renderStepPeak } from './step-view.js';
import { renderServing } from './serving-view.js';
import { renderCompare } from './compare-view.js';
import { notePlanSetup, wirePlan } from './plan-view.js';
import { cliCommand, copyText, download, markdownTable } from './share.js';
import { pinLabel, renderPins } from './pins.js';
import { renderFitModels } from './analysis-views.js';
import { checkFirst, drawFirst, endFirst, firstAnswer, withdrawFirst } from './first-result.js';
import BAKED_FIRST from './first-baked.js';

/** localStorage key of the theme picked. */
const THEME_KEY = 'memplan.theme';

/** The longest the derived views may compute before they are stopped with a message, in ms. */
export const ANALYSIS_LIMIT_MS = 2000;  // ordinary configurations take 10 to 20 ms
/** The longest a layout plan may run in its worker before it is stopped with a message, in ms. */
export const PLAN_LIMIT_MS = 20000;
/** The small plan the planner's worker runs once to warm up (Llama 3.2 1B on one 8-GPU count). */
const PLAN_WARM_REQUEST = { config: { mode: 'train', model: { preset: 'llama-3.2-1b' } }, gpu: 'h100-sxm-80gb', min_gpus: 8, max_gpus: 8, global_batch: 8, top_n: 1 };

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
/** The last answer shown: {state, config, result, rows} (export, pinning; rows: the mode's explanation rows). */
let shown = null;
/** How the core explains each breakdown row, per run mode (mp.explanations()). */
let explanations = null;
/** Pinned setups: [{label, config, result}]. */
const pins = [];
/**
 * The answer on screen before the core's first answer from the form (first-result.js): the one computed
 * at build time, or a link's answer drawn before the form is built (drawLinkFirst, for the link earlyHash).
 */
let early = null;
let earlyHash = null;
/** The core's reader of a number field's text (mp.parseField: as that field reads it) for every numeric input. */
const parse = (text, path) => mp.parseField(text, path);
/** The form field the user changed last (an error its message is about is shown there). */
let touched = null;

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

/**
 * The model a family names, for a model typed by hand or reopened from a link (no preset, no pasted
 * config): the core's resolution of the state's model_type and its numbers, so that the flags the family
 * implies (Qwen3's QK-norm) are the core's and only the fields the form changed go on top (buildConfig's
 * base). Null without a model_type, or when the core cannot resolve it (the form's own errors follow).
 */
function familyModel(state) {
  if (!state['model.model_type']) return null;
  const { config } = buildConfig(spec, state, parse);
  const numbers = Object.entries(config.model).filter(([key, value]) => typeof value === 'number' || key === 'model_type');
  try {
    return mp.resolveModel({ model: Object.fromEntries(numbers) }).model;
  } catch {
    return null;
  }
}

/**
 * The base of the model the state sends (buildConfig): the preset's, else the pasted config's (only the
 * form's own state has one), else the family's.
 */
function modelBaseOf(state, pasted = null) {
  if (state['model.preset']) return presetModel(state['model.preset']);
  return pasted || familyModel(state);
}

/** Model fields of a stored preset as the core resolves it (null for an unknown id). */
function presetFields(id) {
  if (!presetCache.has(id)) {
    const model = presetModel(id);
    presetCache.set(id, model ? modelFields(spec, model) : null);
  }
  return presetCache.get(id);
}

/** The link of the page: the state's hash and, once per pin, the pinned setup's own state (PIN_KEY). */
function linkOf(state) {
  const hash = encodeState(spec, state, presetFields);
  const hub = hubLink();  // a model loaded from the Hub: its id and revision, never the files
  if (!pins.length && !hub) return hash;
  const params = new URLSearchParams(hash.slice(1));
  if (hub) params.set(HUB_KEY, hub);
  for (const pin of pins) params.append(PIN_KEY, encodeState(spec, pin.state, presetFields).slice(1));
  return '#' + params.toString();
}

/** A pin of a link (its state's hash) computed again, as the page computes an answer; false when it has errors. */
function restorePin(text) {
  const { state } = decodeState(spec, '#' + text, presetFields);
  const { config, errors } = buildConfig(spec, state, parse, modelBaseOf(state));
  if (errors.length) return false;
  try {
    const result = mp.estimate(config);
    pins.push({ label: pinLabel(state, spec, presets, result), config, result, state });
    return true;
  } catch {
    return false;
  }
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
  showModeAndGpu(spec, state, preset, preset ? presetFields(preset.id) : null);
  history.replaceState(null, '', location.pathname + location.search + linkOf(state));
  $('share').href = location.href;
  const { config, errors, parsed } = buildConfig(spec, state, parse, modelBaseOf(state, pastedModel));
  let result;
  if (!errors.length) {
    try {
      result = mp.estimate(config);
    } catch (error) {
      errors.push(...(error.errors || [{ field: 'config', message: String(error.message) }]));
    }
  }
  const rows = explanations[state.mode];
  if (early) {
    checkFirst(early, errors.length ? null : firstAnswer(spec, state, config, result, rows, presets));
    early = null;
  }
  if (errors.length) {
    showParsed(parsed, showErrors(errors, spec, state, touched));
    clearModelSummary();
    $('setup').textContent = '';
    renderStepPeak(null);
    shown = null;
    return finished(ticket);
  }
  showErrors([]);
  showParsed(parsed);
  const unit = state.unit;
  shown = { state, config, result, rows };
  const setup = pinLabel(state, spec, presets, result);
  if ($('setup').textContent !== setup) $('setup').textContent = setup;
  notePlanSetup(config, state['gpu.preset']);
  renderVerdict(result, unit);
  renderWarnings(result, spec);  // the core flags a context beyond the model's max_position_embeddings
  renderBreakdown(result, unit, rows);
  renderModelSummary(result, unit);
  renderFinetune(result, null, unit);
  renderStepPeak(result, unit, mp.frameworks());
  renderServing(mp, result, null, unit);
  renderCompare(mp, config, unit);
  renderPins(spec, pins, { label: setup, config, result }, unit, rows);
  $('zero-section').hidden = state.mode !== 'train';  // the ZeRO stages coincide in inference
  $('output').classList.remove('stale');
  $('output').hidden = false;
  $('loading').hidden = true;
  $('output').dataset.estimated = String(++estimated);
  if (estimated === 1) {
    performance.mark('memplan:first-estimate');
    if (!performance.getEntriesByName('memplan:first-result').length) performance.mark('memplan:first-result');
  }
  const startedAt = inputAt;
  inputAt = null;
  if (startedAt !== null) performance.measure('memplan:input-to-total', { start: startedAt, end: performance.now() });
  if (embed) return finished(ticket);
  runAnalysis(config).then((outcome) => {
    if (outcome.superseded || ticket !== generation) return;  // a newer input is pending or drawn
    if (outcome.analysis) {
      const analysis = outcome.analysis;
      renderLimits(spec, analysis, config);
      renderFitModels(analysis.preset_fits || [], state['model.preset'], unit);
      renderDetails(analysis.estimate, config, unit);
      renderZero(spec, analysis, config, unit);
      renderSuggestions(spec, analysis, unit, config.mode);
      renderChart(spec, analysis, config, unit);
      renderFinetune(analysis.estimate, analysis, unit);
      renderServing(mp, analysis.estimate, analysis, unit);
      viewsStatus('', false);
      if (startedAt !== null) performance.measure('memplan:input-to-views', { start: startedAt, end: performance.now() });
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

/** Says what a copy or download did, next to the buttons (not a live region: the verdict is the only one). */
function said(text) {
  $('copied').textContent = text;
}

function wireActions() {
  const copy = async (text, what) => said((await copyText(text)) ? `${what} copied.` : `Could not copy the ${what.toLowerCase()}.`);
  $('copy-link').addEventListener('click', () => copy(location.href, 'Link'));
  $('copy-cli').addEventListener('click', () => shown && copy(cliCommand(shown.config), 'CLI command'));
  $('copy-md').addEventListener('click', () => shown && copy(markdownTable(shown.result, shown.state.unit, shown.rows), 'Markdown table'));
  $('download-config').addEventListener('click', () => { if (shown) { download('memplan-config.json', JSON.stringify(shown.config, null, 2) + '\n'); said('Config downloaded.'); } });
  $('download-result').addEventListener('click', () => { if (shown) { download('memplan-result.json', JSON.stringify(shown.result, null, 2) + '\n'); said('Result downloaded.'); } });
  $('pin').addEventListener('click', () => {
    if (!shown) return;
    pins.push({ label: pinLabel(shown.state, spec, presets, shown.result), config: shown.config, result: shown.result, state: shown.state });
    said(`Pinned (${pins.length}). Change the form to compare.`);
    update();
  });
  $('clear-pins').addEventListener('click', () => { pins.length = 0; said('Pins cleared.'); update(); });
}

// No typing debounce: an input recomputes at the next frame (inputs within one frame share one update).
// The performance measures memplan:input-to-total (the verdict and breakdown drawn) and
// memplan:input-to-views (the worker's derived views drawn) start at the first input of the frame.
let frame = 0;
let inputAt = null;
function scheduleUpdate() {
  markPending();
  if (!frame) frame = requestAnimationFrame(() => { frame = 0; update(); });
}

function onInput(event) {
  const target = event.target;
  if (target.id === 'preset-search') return event.type === 'input' ? pickPreset(target.value) : undefined;  // not again on leaving it
  if (target.id === 'gpu-search') return event.type === 'input' ? pickGpu(target.value) : undefined;
  if (target.id === 'hf-config' || target.id === 'hf-file') return;  // config-import.js handles them
  // A text field's 'change' (when it loses focus) follows the 'input' events that already updated: an
  // update for it would only redraw the same answer, and take the focus from a suggestion the user
  // moved to.
  if (event.type === 'change' && target.type === 'text') return;
  if (target.name === 'model.preset' && target.value) { pastedModel = null; writeForm(presetFields(target.value) || {}); }
  if (inputAt === null) inputAt = performance.now();
  if (event.type === 'change') {  // lists and boxes: at once
    if (frame) cancelAnimationFrame(frame);
    frame = 0;
    update();
  } else scheduleUpdate();
}

/**
 * "Find a model" and "Find a GPU": the list already narrowed to the core's matches (`ids`, best first), the
 * best match picked in `select`, and `note` saying which it picked and of how many, or that nothing matched
 * (`none`) and what stays (`kept`); the answer follows the pick.
 */
function pickBest(query, ids, select, note, none, kept) {
  const q = query.trim();
  const matches = q ? [...select.options].filter((o) => o.value && ids.includes(o.value)) : [];
  const top = matches[0];
  const name = (option) => option.textContent.split(' — ')[0];
  note.textContent = !q ? ''
    : top ? `Picked ${name(top)}, the best of ${matches.length} ${matches.length === 1 ? 'match' : 'matches'} for “${q}”.`
      : `${none} matches “${q}”; ${kept} stays ${select.selectedOptions[0] ? name(select.selectedOptions[0]) : 'as it is'}.`;
  if (!top || select.value === top.value) return;
  select.value = top.value;
  select.dispatchEvent(new Event('change', { bubbles: true }));
}

function pickPreset(query) {
  filterPresets(presets, (q) => mp.searchPresets(q));
  pickBest(query, query.trim() ? mp.searchPresets(query) : [], $('model-preset'), $('preset-picked'), 'No stored model', 'the model');
}

function pickGpu(query) {
  filterGpus(spec, query, (q) => mp.searchGpus(q));
  pickBest(query, query.trim() ? mp.searchGpus(query) : [], $('gpu-preset'), $('gpu-picked'), 'No GPU in the catalogue', 'the GPU');
}

function applySuggestion(event) {
  const button = event.target.closest('button[data-field]');
  if (!button) return;
  const input = form().elements.namedItem(button.dataset.field);
  if (!input) return;
  const set = (target, value) => {
    if (target.type === 'checkbox') target.checked = String(value) === 'true';
    else target.value = String(value);
  };
  set(input, button.dataset.value);
  // A change that sets more than one field (doubling tp in serving doubles the GPUs) sets them all.
  for (const [path, value] of Object.entries(JSON.parse(button.dataset.also || '{}'))) {
    const other = form().elements.namedItem(path);
    if (other) set(other, value);
  }
  update();
}

function applyTheme(value, remember = true) {
  if (value === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = value;
  if (!remember) return;
  try { localStorage.setItem(THEME_KEY, value); } catch { /* storage refused: the theme lasts this visit */ }
}

/** The theme remembered from an earlier visit ('auto' when none). */
function rememberedTheme() {
  try {
    const value = localStorage.getItem(THEME_KEY);
    return ['light', 'dark', 'auto'].includes(value) ? value : 'auto';
  } catch {
    return 'auto';
  }
}

function showLink(rejected) {
  if (!rejected.length) return;
  const notice = $('notice');
  notice.textContent = `Some settings in the link were not understood and were replaced by defaults: ${rejected.join(', ')}.`;
  notice.hidden = false;
}

/**
 * A link's first answer, drawn as soon as the core has loaded, before the form is built (the answer
 * computed at build time covers no link): the link's state as decodeState reads it and the core's
 * estimate of its configuration, the functions update() then runs on the form's state, which checks it
 * (checkFirst). A link with pins or with settings not understood is left to update(). True when drawn.
 */
function drawLinkFirst() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (linkSetsNothing(location.hash) || params.getAll(PIN_KEY).length) return false;
  const { state, rejected } = decodeState(spec, location.hash, presetFields);
  if (rejected.length) return false;
  const { config, errors } = buildConfig(spec, state, parse, modelBaseOf(state));
  if (errors.length) return false;
  let result;
  try {
    result = mp.estimate(config);
  } catch {
    return false;
  }
  early = firstAnswer(spec, state, config, result, explanations[state.mode], presets);
  earlyHash = location.hash;
  drawFirst(early);
  return true;
}

/** The preset list's parameter counts (mp.presets counts every model), once the first answer is drawn. */
function countPresets() {
  const later = window.requestIdleCallback || ((run) => setTimeout(run, 50));
  later(() => {
    presets = mp.presets();
    filterPresets(presets, (q) => mp.searchPresets(q));
  });
}

function start() {
  const query = new URLSearchParams(location.search);
  embed = query.get('embed') === '1' || new URLSearchParams(location.hash.slice(1)).get('embed') === '1';
  if (embed) document.body.classList.add('embed');
  const theme = rememberedTheme();
  $('theme').value = theme;
  applyTheme(theme, false);
  $('theme').addEventListener('change', (e) => applyTheme(e.target.value));
  // "Skip to the answer" moves the focus to the verdict; following its #verdict would replace the
  // link's hash, which holds the page state.
  document.querySelector('a.skip').addEventListener('click', (e) => { e.preventDefault(); $('verdict').focus(); });
  // A phone's answer bar shows the verdict's first line and the actions; Details (or a tap on the verdict) shows the rest.
  $('bar-more').onclick = $('verdict').onclick = () => $('bar-more').setAttribute('aria-expanded', $('answer-bar').classList.toggle('open'));
  // The Model and GPU lists wrap a long name (appearance: base-select), whose arrow keys open the picker:
  // closed, they keep a native list's arrow keys, which step to the next or previous entry.
  for (const id of ['model-preset', 'gpu-preset']) $(id).addEventListener('keydown', (e) => {
    const s = e.target, i = s.selectedIndex + ({ ArrowDown: 1, ArrowUp: -1 }[e.key] || NaN);
    if (e.altKey || getComputedStyle(s).appearance !== 'base-select' || s.matches(':open') || !s.options[i]) return;
    e.preventDefault();
    s.selectedIndex = i;
    s.dispatchEvent(new Event('change', { bubbles: true }));
  });
  // The WASM is fetched and compiled while the first answer is drawn: by index.html's inline script
  // (memplanWasm), which starts before this script has loaded, else by load().
  const compiled = self.memplanWasm;
  const loading = compiled ? compiled.then((wasmModule) => load({ wasmModule }), () => load()) : load();
  // The starting question's answer, computed at build time, is drawn at once only when the link sets
  // nothing: a link's state is drawn once the core has loaded, never another state before it.
  if (BAKED_FIRST && linkSetsNothing(location.hash)) {
    early = BAKED_FIRST;
    drawFirst(early);
  }
  loading.then((api) => {
    mp = api;
    spec = formSpec(mp.schema(), mp.gpus());
    // The presets' names and sources first (mp.presetNames counts no model); the list's parameter counts
    // (mp.presets, which counts every model) follow the first answer (countPresets).
    presets = mp.presetNames();
    explanations = mp.explanations();
    // A link's answer drawn now is painted before the form is built (the next frame, then the rest; a
    // hidden page paints no frame and goes on at once).
    if (early || !drawLinkFirst() || document.visibilityState === 'hidden') return undefined;
    return new Promise((painted) => requestAnimationFrame(() => setTimeout(painted, 0)));
  }).then(() => {
    buildForm(spec);
    wireFinetune(mp.recipes());
    filterPresets(presets, (q) => mp.searchPresets(q));
    wireActions();
    wireChartReadout();
    if (!embed) runAnalysis = analysisClient(spawnWorker, ANALYSIS_LIMIT_MS);
    // The field changed last, also in the panels outside the form (their events reach the form re-sent, from the form).
    for (const type of ['input', 'change']) document.addEventListener(type, (e) => { if (e.target.name && e.target.form) touched = e.target.name; }, true);
    form().addEventListener('input', onInput);
    form().addEventListener('change', onInput);
    form().addEventListener('submit', (e) => e.preventDefault());
    $('suggestions').addEventListener('click', applySuggestion);
    if (!embed) {
      const planClient = analysisClient(spawnWorker, PLAN_LIMIT_MS, 'plan');
      wirePlan(planClient, () => (shown ? shown.state.unit : 'GiB'));
      // The planner's worker starts while the user reads the first answer: its module loaded and one small
      // plan run, so the first Plan click streams without waiting for either. A second after the form is
      // built and then when the page is idle, so that it never competes with a shared link's own answer.
      const idle = window.requestIdleCallback || ((f) => setTimeout(f, 0));
      setTimeout(() => idle(() => planClient.warm(PLAN_WARM_REQUEST), { timeout: 3000 }), 1000);
    }
    $('plan-table').addEventListener('click', applySuggestion);
    const loadModel = (model) => {
      pastedModel = model;
      writeForm({ ...modelFields(spec, model), 'model.preset': '' });
      update();
    };
    wireConfigImport(spec.limits, (text) => mp.resolveModel({}, { hfConfig: text }), loadModel);
    // The link is read once the presets are known: it names a preset and the fields that differ from it.
    // A link typed since the early answer was drawn: its state, unchecked.
    if (early && (early === BAKED_FIRST ? !linkSetsNothing(location.hash) : location.hash !== earlyHash)) {
      early = null;
      endFirst('superseded');
    }
    // A config.json the families refuse comes as the day-one path's model: loaded as a pasted one's, the
    // text shown in the text area (not read again: the families refuse it).
    const dayOneModel = (model, text) => {
      $('hf-config').value = text;
      loadModel(model);
    };
    if (!embed) wireHub(mp, new URLSearchParams(location.hash.slice(1)).get(HUB_KEY), undefined, dayOneModel);  // before the link is rewritten
    const { state, rejected } = decodeState(spec, location.hash, presetFields);
    for (const text of new URLSearchParams(location.hash.slice(1)).getAll(PIN_KEY))
      if (!restorePin(text)) rejected.push(PIN_KEY);
    showLink(rejected);
    writeForm(state);
    filterPresets(presets, (q) => mp.searchPresets(q));
    filterGpus(spec, '');
    update();
    countPresets();
  }).catch((error) => {
    if (early) {  // no answer without the core: the early one goes
      early = null;
      withdrawFirst();
    }
    $('loading').textContent = 'The calculator could not be loaded: ' + error.message;
    $('verdict').textContent = $('loading').textContent;
  });
}

if (typeof document === 'undefined') serveAnalysis(self, load);
else start();
