// memplan — one GET from the Hugging Face Hub, shared by the page's Hub box (hub.js) and the element's
// model="org/name" (memplan-estimate-hub.js): bounded in time and size by the core's limits of the model
// (mp.hubModel(...).limits), the token (when one is given) sent as "Authorization: Bearer", and every
// failure a HubError naming the file. The addresses are the core's (files_url, api_url).
import { formatCount } from './format.js';

const GATED = 'gated: accept the licence on the model page and give a token';

/** A failure of one request, naming the file; kind: 'network', 'timeout', 'gated', 'missing', 'http', 'range', 'size', 'text'. */
export class HubError extends Error {
  constructor(file, message, kind) {
    super(file + ': ' + message);
    this.file = file;
    this.kind = kind;
  }
}

/**
 * One GET of `url` (the Hub's or its CDN's), bounded in time (limits.timeout_ms) and size (`limit`,
 * limits.max_reply_bytes unless given); `bytes`: the body as a Uint8Array. Returns {body, contentRange}.
 */
export async function hubGet(url, file, { limits, token = '', range = '', bytes = false, limit = limits.max_reply_bytes, revision = '' }) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeout_ms);
  const late = () => new HubError(file, `the Hub did not answer within ${formatCount(limits.timeout_ms)} ms`, 'timeout');
  const headers = {};
  if (token) headers.Authorization = 'Bearer ' + token;
  if (range) headers.Range = range;
  try {
    let response;
    try {
      response = await fetch(url, { headers, signal: controller.signal, credentials: 'omit', cache: 'no-store' });
    } catch (error) {
      if (controller.signal.aborted) throw late();
      throw new HubError(file, 'could not be fetched (' + (error && error.message) + '): the Hub or its file server is ' +
        'unreachable from this page, or refused a cross-origin request', 'network');
    }
    if (response.status === 401 || response.status === 403)
      throw new HubError(file, token ? GATED + ' (the token given was refused: HTTP ' + response.status + ')' : GATED, 'gated');
    if (response.status === 404)
      throw new HubError(file, 'is not in this repository' + (revision ? ' at revision ' + revision : '') + ' (HTTP 404)', 'missing');
    if (!response.ok) throw new HubError(file, 'the Hub answered HTTP ' + response.status, 'http');
    if (range && response.status !== 206) {
      controller.abort();
      throw new HubError(file, 'the server sent the whole file (HTTP ' + response.status + ') instead of the range ' + range, 'range');
    }
    const declared = response.headers.get('content-length');
    if (declared !== null && Number(declared) > limit) {
      controller.abort();
      throw new HubError(file, `is larger than the ${formatCount(limit)} bytes this page reads`, 'size');
    }
    let body;
    try {
      body = bytes ? new Uint8Array(await response.arrayBuffer()) : await response.text();
    } catch (error) {
      if (controller.signal.aborted) throw late();
      throw new HubError(file, 'its reply broke off (' + (error && error.message) + ')', 'network');
    }
    if (body.length > limit) throw new HubError(file, `is larger than the ${formatCount(limit)} bytes this page reads`, 'size');
    return { body, contentRange: response.headers.get('content-range') };
  } finally {
    clearTimeout(timer);
  }
}
