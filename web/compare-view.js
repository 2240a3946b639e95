// memplan page — "What other tools say": the same configuration in other public estimators (DeepSpeed,
// Megatron-LM, EleutherAI, accelerate) through mp.compare(), each tool's figure as it prints it (its own
// units), "cannot express" where the tool has no way to state the configuration, and the terms that
// differ with the core's one-line reason (docs/compare.md). Collapsed by default; computed only while
// open; linkable as ?open=compare (the URL hash is the page state, so the panel uses the query).
import { $, el } from './dom.js';
import { formatBytes, formatExactBytes } from './format.js';

/** The query parameter and value that open the panel. */
const OPEN_KEY = 'open';
const OPEN_VALUE = 'compare';

let api = null;
let lastConfig = null;
let lastUnit = 'GiB';
let shown = null;  // the configuration the table shows
let wired = false;

function wire() {
  const panel = $('compare-tools');
  panel.addEventListener('toggle', () => {
    const query = new URLSearchParams(location.search);
    if (panel.open) query.set(OPEN_KEY, OPEN_VALUE);
    else if (query.get(OPEN_KEY) === OPEN_VALUE) query.delete(OPEN_KEY);
    const search = query.toString();
    history.replaceState(null, '', location.pathname + (search ? '?' + search : '') + location.hash);
    if (panel.open) draw();
  });
  if (new URLSearchParams(location.search).get(OPEN_KEY) === OPEN_VALUE) panel.open = true;
  wired = true;
}

function termItem(t, unit) {
  const li = el('li', null, { 'data-term': t.term });
  li.append(el('strong', t.term + ': '),
    el('span', `${formatBytes(t.tool_bytes, unit)} there, ${formatBytes(t.memplan_bytes, unit)} in memplan`,
      { title: `${formatExactBytes(t.tool_bytes)} / ${formatExactBytes(t.memplan_bytes)}` }),
    el('span', ' — ' + t.reason, { class: 'reason' }));
  return li;
}

function toolRow(t, unit) {
  const tr = el('tr', null, { 'data-tool': t.tool, 'data-expressible': String(t.expressible) });
  const name = el('th', null, { scope: 'row' });
  name.append(el('span', t.tool, { class: 'mono' }), el('small', t.version, { class: 'source block' }),
    el('small', t.source, { class: 'source block' }));
  const figure = t.expressible
    ? el('td', t.figure_text, { class: 'num figure', title: `${formatExactBytes(t.figure)}; units: ${t.units}` })
    : el('td', 'cannot express: ' + t.lacks, { class: 'lacks', colspan: '2' });
  const why = el('td');
  if (t.expressible) {
    if (t.lacks) why.append(el('p', 'Counts ' + t.lacks, { class: 'hint' }));
    why.append(el('p', `Units: ${t.units}`, { class: 'hint' }));
    const differing = t.terms.filter((x) => x.reason);
    if (differing.length) {
      const list = el('ul', null, { class: 'terms' });
      list.append(...differing.map((x) => termItem(x, unit)));
      why.append(list);
    }
  }
  tr.append(name, figure);
  if (t.expressible) tr.append(why);
  return tr;
}

function draw() {
  const panel = $('compare-tools');
  if (!panel.open || !api || !lastConfig) return;
  const key = JSON.stringify(lastConfig) + lastUnit;
  if (shown === key) return;
  const status = $('compare-status');
  const body = $('compare-tools-table').tBodies[0];
  let out;
  try {
    out = api.compare(lastConfig);
  } catch (error) {
    status.textContent = 'Cannot compare: ' + (error.errors || [{ field: 'config', message: error.message }])
      .map((e) => `${e.field}: ${e.message}`).join('; ');
    body.replaceChildren();
    shown = null;
    return;
  }
  shown = key;
  const unit = lastUnit;
  const memplan = el('tr', null, { 'data-tool': 'memplan', class: 'current' });
  memplan.append(el('th', 'memplan', { scope: 'row' }),
    el('td', formatBytes(out.memplan.total_bytes, unit), { class: 'num figure', title: formatExactBytes(out.memplan.total_bytes) }),
    el('td', 'Per GPU, every term (the breakdown above).'));
  const rows = [memplan, ...out.tools.map((t) => toolRow(t, unit))];
  const b = out.deepspeed_buffers;
  if (b) {
    const tr = el('tr', null, { 'data-tool': 'deepspeed_buffers' });
    const list = el('ul', null, { class: 'terms' });
    list.append(...b.allocated.map((a) => el('li', `${a.name}: ${formatBytes(a.bytes, unit)} — ${a.formula} (${a.source})`)));
    const why = el('td');
    why.append(el('p', `DeepSpeed allocates these ZeRO stage ${b.stage} buffers; memplan's communication row is ` +
      `${formatBytes(b.memplan_communication_bytes, unit)}. ${b.assumptions}`, { class: 'hint' }), list);
    tr.append(el('th', 'DeepSpeed buffers', { scope: 'row' }),
      el('td', formatBytes(b.allocated_bytes, unit), { class: 'num', title: formatExactBytes(b.allocated_bytes) }), why);
    rows.push(tr);
  }
  body.replaceChildren(...rows);
  status.textContent = out.errors && out.errors.length ? out.errors.map((e) => `${e.field}: ${e.message}`).join('; ') : '';
}

/** Keeps the configuration for the panel; computes only while the panel is open. */
export function renderCompare(mp, config, unit) {
  api = mp;
  lastConfig = config;
  lastUnit = unit;
  if (!wired) wire();
  draw();
}
