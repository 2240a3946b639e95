// Assembles dist/ from web/ and the WebAssembly build (build/wasm/wasm). Run by scripts/build-web.sh.
import { build, transform } from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = path.join(root, 'web');
const wasm = path.join(root, 'build/wasm/wasm');
const dist = path.join(root, 'dist');

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });

// 1. The API module as written (memplan.js, its .d.ts, the ES6 WebAssembly factory and .wasm), the
//    pages and the style sheet.
//    The estimate-only API (memplan-lite.js, its factory and .wasm) beside it: both read memplan-api.js.
for (const name of await readdir(web))
  if (/\.(html|d\.ts)$/.test(name) || name === 'memplan.js')
    await copyFile(path.join(web, name), path.join(dist, name));
// The two files of the API that the element <memplan-estimate> loads beside its core (memplan-api.js,
// memplan-lite.js) minified by esbuild (comments, whitespace and local names; the exports keep their
// names and memplan.d.ts / memplan-lite.d.ts describe them): the comments were two thirds of their
// gzipped bytes (6,891 -> 2,117 B). memplan.js, which the page bundles and the element does not load,
// stays as written.
for (const name of ['memplan-lite.js', 'memplan-api.js']) {
  const { code } = await transform(await readFile(path.join(web, name), 'utf8'),
    { minify: true, format: 'esm', target: 'es2020', legalComments: 'none' });
  await writeFile(path.join(dist, name), code);
}
// The page's style sheet and HTML without their comments: they say why a rule or an element is there,
// for whoever edits web/; a browser has no use for them (a fifth of the sheet's gzipped bytes). No rule
// holds "/*" in a string; the single-file build below reads web/index.html, whose preload markers it needs.
// The sheet is then minified by esbuild (whitespace, shorter colours and numbers; no rule lowered for
// older browsers), the HTML loses its lines' indentation (a line break stays where there was one, so
// the text between elements reads the same; the page has no <pre>, and its <textarea> is empty).
const style = (await transform((await readFile(path.join(web, 'style.css'), 'utf8')).replace(/\/\*[\s\S]*?\*\/\n?/g, ''),
  { loader: 'css', minify: true })).code;
await writeFile(path.join(dist, 'style.css'), style);
await writeFile(path.join(dist, 'index.html'), (await readFile(path.join(web, 'index.html'), 'utf8'))
  .replace(/ *<!--[\s\S]*?-->\n?/g, '').replace(/\n[ \t]+</g, '\n<'));
// The factories as Emscripten wrote them, but for how embind reads a std::string the core returns (every
// JSON reply): Emscripten 3.1.6 walks its bytes one by one in JS to split it at NUL bytes, decodes each
// part and joins them with U+0000; one TextDecoder call over the same bytes gives the same string. Cold
// (the page's first calls, the schema's 46 KB), the loop cost 10 to 17 ms of a shared link's first answer.
const BYTE_LOOP = 'var decodeStartPtr=value+4;for(var i=0;i<=length;++i){var currentBytePtr=value+4+i;' +
  'if(i==length||HEAPU8[currentBytePtr]==0){var maxRead=currentBytePtr-decodeStartPtr;' +
  'var stringSegment=UTF8ToString(decodeStartPtr,maxRead);if(str===undefined){str=stringSegment}' +
  'else{str+=String.fromCharCode(0);str+=stringSegment}decodeStartPtr=currentBytePtr+1}}';
const ONE_DECODE = 'str=UTF8Decoder.decode(HEAPU8.subarray(value+4,value+4+length))';
async function factory(name) {
  const text = await readFile(path.join(wasm, name), 'utf8');
  if (text.split(BYTE_LOOP).length !== 2 || !text.includes('UTF8Decoder=new TextDecoder("utf8")'))
    throw new Error(`assemble-web: ${name}: embind's std::string reader is not the one expected (another Emscripten?)`);
  return text.replace(BYTE_LOOP, ONE_DECODE);
}
// Minified by esbuild (local names and whitespace; Emscripten reaches the module's members by quoted
// property names, which minifying leaves alone): the element loads memplan-estimate-core.js as it is, and
// Node and bundlers load memplan-core.js (the page's app.js bundle minifies its own copy).
for (const name of ['memplan-core.js', 'memplan-estimate-core.js']) {
  const { code } = await transform(await factory(name), { minify: true, format: 'esm', target: 'es2020', legalComments: 'none' });
  await writeFile(path.join(dist, name), code);
}
for (const name of ['memplan-core.wasm', 'memplan-estimate-core.wasm']) await copyFile(path.join(wasm, name), path.join(dist, name));

// index.html's inline script (the WASM compiled while app.js loads) runs only if its hash is in script-src.
{
  const page = await readFile(path.join(web, 'index.html'), 'utf8');
  const inline = page.match(/<script>([^<]*)<\/script>/)[1];
  const hash = "'sha256-" + createHash('sha256').update(inline, 'utf8').digest('base64') + "'";
  if (!page.match(/script-src [^;]*/)[0].includes(hash)) throw new Error('assemble-web: index.html script-src lacks ' + hash);
}

// 2. The answer to the question the page opens with, computed now by the module just copied (the same
//    core as the page's) with the page's own functions (web/first-result.js startingAnswer), bundled in
//    place of web/first-baked.js: the page draws it before the WASM has loaded when the link sets nothing,
//    and checks it against the core's own answer once loaded (#output[data-early]).
const { load } = await import(pathToFileURL(path.join(dist, 'memplan.js')).href);
const { startingAnswer } = await import(pathToFileURL(path.join(web, 'first-result.js')).href);
const firstAnswer = startingAnswer(await load());
const firstBaked = {
  name: 'first-baked',
  setup(b) {
    b.onLoad({ filter: /[\\/]web[\\/]first-baked\.js$/ }, () => ({
      contents: `export default ${JSON.stringify(firstAnswer)};`, loader: 'js' }));
  },
};

// 3. The served page's script: web/app.js and its modules (the API and the factory included) as one
//    minified ES module, so the page loads in one request instead of a chain of imports. The factory
//    finds memplan-core.wasm next to app.js through import.meta.url. The same file is the script of the
//    page's analysis worker (a module worker), so the worker costs no download of its own.
const coreFromBuild = {
  name: 'core-from-build',
  setup(b) {
    b.onResolve({ filter: /memplan-core\.js$/ }, () => ({ path: path.join(dist, 'memplan-core.js') }));
  },
};
// The Hub box's loading (web/hub-load.js with hub-fetch.js) is a module of its own beside app.js,
// imported by web/hub.js the first time a model is loaded from the Hub: a page that loads none does not
// download it (measured, gzip -9: app.js 43,458 -> 39,922 B; hub-load.js 4,127 B, loaded on use).
const hubLoadAsSibling = {
  name: 'hub-load-as-sibling',
  setup(b) {
    b.onResolve({ filter: /^\.\/hub-load\.js$/ }, (args) => ({ path: args.path, external: true }));
  },
};
await build({
  entryPoints: [path.join(web, 'app.js')], bundle: true, format: 'esm', minify: true, outfile: path.join(dist, 'app.js'),
  platform: 'browser', target: 'chrome100', external: ['node:*'], plugins: [coreFromBuild, firstBaked, hubLoadAsSibling],
  logLevel: 'error',
});
await build({
  entryPoints: [path.join(web, 'hub-load.js')], bundle: true, format: 'esm', minify: true, outfile: path.join(dist, 'hub-load.js'),
  platform: 'browser', target: 'chrome100', legalComments: 'none', logLevel: 'error',
});

// 4. The custom element <memplan-estimate> (web/memplan-estimate.js and the page's formatting modules) as
//    one ES module that imports ./memplan-lite.js (the estimate-only core) as a separate file, so that a
//    page with the element and its own `import { load } from './memplan-lite.js'` shares one loaded core.
//    Its Hub reader (web/memplan-estimate-hub.js with hub-fetch.js, model="org/name") is a module of its
//    own beside it, imported only by an element that names a Hub model; it reads the id with the full
//    API ./memplan.js, also a separate file.
const apiAsSibling = {
  name: 'api-as-sibling',
  setup(b) {
    b.onResolve({ filter: /^\.\/(memplan-lite|memplan|memplan-estimate-hub)\.js$/ }, (args) => ({ path: args.path, external: true }));
  },
};
for (const name of ['memplan-estimate.js', 'memplan-estimate-hub.js'])
  await build({
    entryPoints: [path.join(web, name)], bundle: true, format: 'esm', minify: true,
    outfile: path.join(dist, name), platform: 'browser', target: 'chrome100', plugins: [apiAsSibling],
    legalComments: 'none', logLevel: 'error',
  });

// 5. The single-file page: classic inline script (factory with the WASM inlined + the page bundled
//    as an IIFE), inline style, and a CSP that allows exactly these by hash.
const coreAsGlobal = {
  name: 'core-as-global',
  setup(b) {
    b.onResolve({ filter: /memplan-core\.js$/ }, () => ({ path: 'core', namespace: 'core-global' }));
    b.onLoad({ filter: /.*/, namespace: 'core-global' }, () => ({
      contents: 'export default globalThis.createMemplanCore;', loader: 'js' }));
  },
};
const bundle = await build({
  entryPoints: [path.join(web, 'app.js')], bundle: true, format: 'iife', minify: true, write: false,
  platform: 'browser', target: 'chrome100', external: ['node:*'], plugins: [coreAsGlobal, firstBaked],
  define: { 'import.meta.url': '""' }, logLevel: 'error',
});
const glue = await factory('memplan-core-single.js');
const script = (glue + '\n' + bundle.outputFiles[0].text).replace(/<\/(script)/gi, '<\\/$1');
const sha = (text) => "'sha256-" + createHash('sha256').update(text, 'utf8').digest('base64') + "'";
// worker-src blob:: the page runs analyze() in a worker whose script is this inline script's own text
// (web/app.js spawnWorker), handed over as a blob: URL.
let html = await readFile(path.join(web, 'index.html'), 'utf8');
// connect-src: data: (the inlined WASM) and the Hugging Face Hub's origins that index.html's policy
// allows beside 'self' (web/hub.js fetches from them), written once there.
const hubOrigins = html.match(/connect-src 'self'((?: https:\/\/[a-z0-9.-]+)*);/)[1];
const csp = `default-src 'none'; script-src ${sha(script)} 'wasm-unsafe-eval'; worker-src blob:; style-src ${sha(style)}; ` +
  `img-src data:; connect-src data:${hubOrigins}; object-src 'none'; base-uri 'none'; form-action 'none'`;

const replaceOnce = (from, to) => {
  const at = html.indexOf(from);
  if (at < 0 || html.indexOf(from, at + 1) >= 0) throw new Error('assemble-web: expected exactly one ' + from);
  html = html.slice(0, at) + to + html.slice(at + from.length);
};
replaceOnce(html.match(/<meta http-equiv="Content-Security-Policy" content="[^"]*">/)[0],
  `<meta http-equiv="Content-Security-Policy" content="${csp}">`);
replaceOnce(html.match(/<!-- preload:begin[\s\S]*?<!-- preload:end -->\n/)[0], '');
replaceOnce('<link rel="stylesheet" href="style.css">', `<style>${style}</style>`);
// The classic script runs at the end of <body>, after the elements it looks up exist.
replaceOnce('<script type="module" src="app.js"></script>\n', '');
replaceOnce('</body>', `<script>${script}</script>\n</body>`);
replaceOnce('<a href="embed-example.html">embed it</a>', 'single-file build');
await writeFile(path.join(dist, 'memplan.html'), html);

const files = await readdir(dist);
console.log(`dist/: ${files.length} files (${files.join(', ')})`);
