// Run by `npm pack` / `npm publish` (the prepack script): the package ships files of dist/ (package.json
// `files`), so each must exist; dist/ is built by `npm run build` (or scripts/build-web.sh --js-only).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { files } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const missing = [];
for (const file of files) {
  try {
    if ((await stat(path.join(root, file))).size === 0) missing.push(file + ' (empty)');
  } catch {
    missing.push(file);
  }
}
if (missing.length) {
  console.error(`npm pack: missing ${missing.join(', ')}; build dist/ first (npm run build, or scripts/build-web.sh --js-only)`);
  process.exit(1);
}
