// The console's JavaScript budget (issue 20): what the first page loads, gzipped, at most 150 KB.
// Printed by every build; a build over it fails. The first page is what index.html names (its entry
// script and styles) and the modules that entry imports statically; pages loaded on navigation
// are separate chunks and are listed apart.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET = 150 * 1024;
const dist = new URL('../dist/', import.meta.url).pathname;
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const named = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((m) => m[1]);
const gz = (file) => gzipSync(readFileSync(join(dist, file))).length;

// Static imports of the entry, followed from chunk to chunk (Vite writes them as `from"./x.js"`).
const first = new Set();
const visit = (file) => {
  if (first.has(file)) return;
  first.add(file);
  if (!file.endsWith('.js')) return;
  const code = readFileSync(join(dist, file), 'utf8');
  for (const m of code.matchAll(/(?:^|[;\s}])import\s*(?:[^'"()]*?from\s*)?["']\.\/([^"']+\.js)["']/g)) {
    visit(`assets/${m[1]}`);
  }
};
for (const file of named) visit(file);

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const firstBytes = [...first].reduce((sum, file) => sum + gz(file), 0);
const later = readdirSync(join(dist, 'assets'))
  .map((name) => `assets/${name}`)
  .filter((file) => !first.has(file) && /\.(js|css)$/.test(file));
console.log(`console: first page ${kb(firstBytes)} gzipped (budget ${kb(BUDGET)}) in ${first.size} files`);
console.log(
  `console: ${later.length} more files on navigation, ${kb(later.reduce((s, f) => s + gz(f), 0))} gzipped in all`,
);
if (firstBytes > BUDGET) {
  console.error(`console: the first page is over its budget by ${kb(firstBytes - BUDGET)}`);
  process.exit(1);
}
