// The npm package as people get it: `npm pack` of the repository, installed from the tarball into
// throw-away projects under a temporary folder (no registry needed: the package has no dependencies),
// then `import { load } from 'memplan'` in Node 20, in an esbuild bundle and in a Vite build, both run in
// Debian's Chromium with <memplan-estimate> from 'memplan/estimate'. esbuild and Vite are the
// repository's devDependencies, run on the throw-away projects.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { launch, serve, watchedPage } from '../e2e/harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHIPPED = ['README.md', 'dist/memplan-api.js', 'dist/memplan-core.js', 'dist/memplan-core.wasm',
  'dist/memplan-estimate-core.js', 'dist/memplan-estimate-core.wasm', 'dist/memplan-estimate-hub.js', 'dist/memplan-estimate.d.ts',
  'dist/memplan-estimate.js', 'dist/memplan-lite.d.ts', 'dist/memplan-lite.js', 'dist/memplan.d.ts', 'dist/memplan.js',
  'package.json'];

/** No test may hang the suite: each ends within a minute. */
const LIMIT = { timeout: 60000 };

let work, tarball, browser;

const run = (command, args, cwd) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A throw-away project with the packed tarball installed; returns its folder. */
async function project(name, files) {
  const dir = path.join(work, name);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  for (const [file, text] of Object.entries(files)) await writeFile(path.join(dir, file), text);
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], dir);
  return dir;
}

const PAGE_SCRIPT = `import { load } from 'memplan';
import 'memplan/estimate';
const mp = await load();
window.stateBytes = mp.modelStateBytes(7e9, 8, 1);
`;
const PAGE = (script) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title>
<link rel="icon" href="data:,"><script type="module" src="${script}"></script></head>
<body><memplan-estimate model="llama-2-7b" gpus="8" zero="1" gpu="h100-sxm-80gb"></memplan-estimate></body></html>`;

/** Serves a built folder, opens its index.html and returns what the page computed. */
async function inChromium(folder) {
  const server = await serve(folder);
  const context = await browser.newContext();
  try {
    const { page, problems } = await watchedPage(context, server.origin);
    await page.goto(server.origin + '/index.html');
    await page.waitForFunction(() => window.stateBytes !== undefined && document.querySelector('memplan-estimate').result);
    const got = await page.evaluate(() => ({ stateBytes: window.stateBytes,
      total: document.querySelector('memplan-estimate').result.per_gpu.total }));
    return { ...got, problems };
  } finally {
    await context.close();
    server.stop();
  }
}

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'memplan-package-'));
  const packed = JSON.parse(run('npm', ['pack', '--json', '--loglevel=error', '--pack-destination', work], ROOT));
  tarball = path.join(work, packed[0].filename);
  assert.deepEqual(packed[0].files.map((f) => f.path).sort(), SHIPPED);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

test('npm pack: name, version, exports and exactly the shipped files', LIMIT, async () => {
  const dir = await project('manifest', {});
  const manifest = JSON.parse(run('node', ['-e', "process.stdout.write(JSON.stringify(require('memplan/package.json')))"], dir));
  assert.equal(manifest.name, 'memplan');
  assert.match(manifest.version, /^\d+\.\d+\.\d+/);
  assert.equal(manifest.exports['.'].types, './dist/memplan.d.ts');
  assert.deepEqual((await readdir(path.join(dir, 'node_modules/memplan/dist'))).sort(),
    SHIPPED.filter((f) => f.startsWith('dist/')).map((f) => f.slice(5)).sort());
});

test('Node 20: import { load } from "memplan" runs an estimate', LIMIT, async () => {
  const dir = await project('node', {
    'main.js': `import { load } from 'memplan';
const mp = await load();
const r = mp.estimate({ model: { preset: 'llama-2-7b' }, parallel: { gpus: 8, zero_stage: 1 } });
console.log(JSON.stringify({ stateBytes: mp.modelStateBytes(7e9, 8, 1), total: r.per_gpu.total }));`,
  });
  const got = JSON.parse(run('node', ['main.js'], dir));
  assert.equal(got.stateBytes, 38500000000);
  assert.ok(got.total > 0);
});

test('Node 20: memplan/lite gives the same estimate from the estimate-only module, and names memplan.js for the rest', LIMIT, async () => {
  const dir = await project('lite', {
    'main.js': `import { load } from 'memplan';
import { load as loadLite } from 'memplan/lite';
const [mp, lite] = await Promise.all([load(), loadLite()]);
const config = { model: { preset: 'llama-2-7b' }, parallel: { gpus: 8, zero_stage: 1 } };
let absent = '';
try { lite.analyze(config); } catch (error) { absent = error.message; }
console.log(JSON.stringify({ full: mp.estimateJson(JSON.stringify(config)), lite: lite.estimateJson(JSON.stringify(config)),
  gpus: lite.gpus().length === mp.gpus().length, absent }));`,
  });
  const got = JSON.parse(run('node', ['main.js'], dir));
  assert.equal(got.lite, got.full);
  assert.ok(JSON.parse(got.lite).per_gpu.total > 0);
  assert.equal(got.gpus, true);
  assert.match(got.absent, /^analyze is not in the estimate-only module \(memplan-lite\.js\)/);
});

test('esbuild: a browser bundle of the package runs in Chromium (the .wasm copied beside the bundle)', LIMIT, async () => {
  const dir = await project('esbuild', { 'main.js': PAGE_SCRIPT, 'index.html': PAGE('app.js') });
  const { build } = await import('esbuild');
  const out = path.join(dir, 'public');
  await build({ absWorkingDir: dir, entryPoints: ['main.js'], bundle: true, format: 'esm', platform: 'browser',
    outfile: path.join(out, 'app.js'), logLevel: 'error' });
  // The factories find their .wasm next to the script through import.meta.url (docs/embedding.md): the
  // full module for load() from 'memplan', the estimate-only one for the element.
  for (const wasm of ['memplan-core.wasm', 'memplan-estimate-core.wasm'])
    await copyFile(path.join(dir, 'node_modules/memplan/dist', wasm), path.join(out, wasm));
  await copyFile(path.join(dir, 'index.html'), path.join(out, 'index.html'));
  const got = await inChromium(out);
  assert.equal(got.stateBytes, 38500000000);
  assert.ok(got.total > 0);
  assert.deepEqual(got.problems, []);
});

test('Vite: a production build of the package runs in Chromium (Vite emits the .wasm itself)', LIMIT, async () => {
  const dir = await project('vite', { 'main.js': PAGE_SCRIPT, 'index.html': PAGE('./main.js'),
    'vite.config.js': "export default { logLevel: 'error', build: { target: 'es2022' } };\n" });
  run('node', [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build'], dir);
  const assets = await readdir(path.join(dir, 'dist/assets'));
  assert.ok(assets.some((f) => f.endsWith('.wasm')), assets.join(', '));
  const got = await inChromium(path.join(dir, 'dist'));
  assert.equal(got.stateBytes, 38500000000);
  assert.ok(got.total > 0);
  assert.deepEqual(got.problems, []);
});
