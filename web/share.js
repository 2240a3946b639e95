// memplan page — share and export: the CLI command that reproduces the page's answer, the breakdown as
// a Markdown table, JSON downloads and copying to the clipboard. Every figure is the core's result,
// formatted by format.js. No DOM here except the clipboard and download helpers at the bottom.
import { partsOf, totalOf } from './explain.js';
import { formatBytes, formatExactBytes } from './format.js';

/** Quotes text for a POSIX shell inside single quotes ('…'\''…'). */
function shellQuote(text) {
  return "'" + String(text).replace(/'/g, "'\\''") + "'";
}

/** `memplan estimate --config - <<< '{…}'`: the native CLI reads the same configuration from stdin. */
export function cliCommand(config) {
  return `memplan estimate --config - <<< ${shellQuote(JSON.stringify(config))}`;
}

/** The breakdown as a Markdown table: part, size in the unit, exact bytes (`rows`: the core's explanation rows, for the labels). */
export function markdownTable(result, unit, rows) {
  const b = result.per_gpu;
  const lines = ['| Part | Size | Bytes |', '| --- | ---: | ---: |'];
  for (const { key, label } of partsOf(rows)) lines.push(`| ${label} | ${formatBytes(b[key], unit)} | ${formatExactBytes(b[key])} |`);
  lines.push(`| **${totalOf(rows).label}** | **${formatBytes(b.total, unit)}** | ${formatExactBytes(b.total)} |`);
  return lines.join('\n') + '\n';
}

/** Copies text; resolves true when the clipboard took it (a hidden textarea and execCommand as fallback). */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'visually-hidden';
    document.body.append(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    area.remove();
    return ok;
  }
}

/** Offers `text` as a file download (a blob: URL, allowed by the page's CSP as a navigation). */
export function download(name, text, type = 'application/json') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
