// memplan page — the first answer, drawn before the core has loaded. Loading the core (fetching,
// compiling and instantiating the WASM, then building the form from its schema) takes hundreds of
// milliseconds; the question the page opens with (no link: state.js decodeState) is known when the page
// is built. scripts/assemble-web.mjs computes its answer then, with the same core and the page's own
// functions (startingAnswer), and bundles the few numbers the verdict, the bar and the breakdown read,
// with the core's explanation rows the breakdown shows under its parts, in place of web/first-baked.js
// (null in the source: unbundled, nothing is drawn early). The page draws
// them at once when the link sets nothing (state.js linkSetsNothing) and, once the core has answered the
// same question itself, checks that the answer drawn was that one (checkFirst): the verdict, the bar and
// the breakdown never show a state other than the one asked for, and a stale bundle says so.
import { $ } from './dom.js';
import { formSpec } from './schema.js';
import { buildConfig, decodeState, modelFields } from './state.js';
import { prefillOf, renderBreakdown, renderVerdict, renderWarnings, warningLines } from './breakdown.js';
import { pinLabel } from './pins.js';

/**
 * A 53-bit digest of a text, as base-36 text: cyrb53 (bryc, public domain; github.com/bryc/code,
 * jshash/experimental/cyrb53.js). The bundle carries the digest of the configuration, not the
 * configuration: the early drawing does not read it, the check compares it.
 */
export function digest(text) {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/**
 * What the early drawing reads of an answer (state: the page state; config: what the page sent; result:
 * mp.estimate(config); rows: the core's explanation rows of the run mode, mp.explanations()[mode];
 * presets: mp.presets(), for the model's name): the run mode, the setup line above the verdict, the unit, the breakdown's rows and parts, the GPU verdict, the warnings as the page words
 * them, and the configuration's digest. Shaped as a result for renderVerdict and renderBreakdown.
 */
export function firstAnswer(spec, state, config, result, rows, presets = []) {
  const answer = {
    mode: state.mode,
    setup: pinLabel(state, spec, presets, result),
    unit: state.unit,
    config: digest(JSON.stringify(config)),
    rows,
    per_gpu: Object.fromEntries(rows.map(({ key }) => [key, result.per_gpu[key]])),
    warnings: warningLines(result, spec),
    prefill: prefillOf(result),
  };
  if (result.gpu) {
    const { fits, capacity_bytes, needed_bytes, headroom_bytes, shortfall_bytes } = result.gpu;
    answer.gpu = { fits, capacity_bytes, needed_bytes, headroom_bytes, shortfall_bytes };
  }
  return answer;
}

/**
 * The answer to the question the page opens with, computed as the page computes it once the core has
 * loaded (app.js start() and update(): the form from the core's schema and GPU catalogue, the state a
 * link that sets nothing gives, the preset's model as the core resolves it, the core's number parser).
 * Run at build time (scripts/assemble-web.mjs) with the module just built.
 */
export function startingAnswer(mp) {
  const spec = formSpec(mp.schema(), mp.gpus());
  const model = (id) => mp.resolveModel({ model: { preset: id } }).model;
  const { state, rejected } = decodeState(spec, '', (id) => modelFields(spec, model(id)));
  const preset = state['model.preset'];
  const { config, errors } = buildConfig(spec, state, (text, path) => mp.parseField(text, path),
    preset ? model(preset) : null);
  if (rejected.length || errors.length)
    throw new Error('the starting state has errors: ' + [...rejected, ...errors.map((e) => `${e.field}: ${e.message}`)].join('; '));
  return firstAnswer(spec, state, config, mp.estimate(config), mp.explanations()[state.mode], mp.presets());
}

/**
 * Draws the verdict, the bar, the warnings and the breakdown from a bundled answer and sets the mark
 * memplan:first-result. The rest of the output (whose views need the core) stays hidden until the core
 * answers (#output.early in style.css). Not an estimate signal: #output[data-estimated] counts the
 * core's answers only (the form does not exist yet); #output[data-early] says "drawn".
 */
export function drawFirst(answer) {
  document.body.dataset.mode = answer.mode;  // as the live update sets it (form.js showModeAndGpu)
  $('setup').textContent = answer.setup;  // the line above the verdict, as app.js update() draws it
  renderVerdict(answer, answer.unit);
  renderWarnings(null, null, answer.warnings);
  renderBreakdown(answer, answer.unit, answer.rows);
  const output = $('output');
  output.classList.add('early');
  output.hidden = false;
  $('loading').hidden = true;
  output.dataset.early = 'drawn';
  performance.mark('memplan:first-result');
}

/**
 * Takes the early answer off the screen when the core could not be loaded (no answer without it): the
 * output is hidden again and the loading line, which then says why, is shown. #output[data-early] stays
 * "drawn".
 */
export function withdrawFirst() {
  $('output').hidden = true;
  $('bar').replaceChildren();
  $('verdict').className = 'verdict';
  delete $('verdict').dataset.fits;
  delete $('verdict').dataset.approximate;
  $('loading').hidden = false;
}

/** The early answer leaves the screen to the core's: #output[data-early] says how (`how`). */
export function endFirst(how) {
  const output = $('output');
  output.classList.remove('early');
  output.dataset.early = how;
}

/**
 * The core's first answer replaces the early one (`live`: firstAnswer of it, or null when the page could
 * not compute one): #output[data-early] becomes "confirmed" when the answer drawn early was this one —
 * the same configuration, the same numbers — and "stale" otherwise, with a console error (the bundle
 * was built for another question or another core).
 */
export function checkFirst(answer, live) {
  const same = live !== null && JSON.stringify(live) === JSON.stringify(answer);
  endFirst(same ? 'confirmed' : 'stale');
  if (!same) console.error('memplan: the answer drawn before the core loaded is stale');
}
