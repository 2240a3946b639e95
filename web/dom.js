// memplan page — DOM helpers shared by the views: look-up by id, elements with text (textContent only,
// never HTML) and SVG elements.
const SVG = 'http://www.w3.org/2000/svg';

export const $ = (id) => document.getElementById(id);

/** Creates an element with text and attributes. */
export function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** Creates an SVG element with attributes and text. */
export function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}
