/**
 * The bundle files `memory.models` names: a file, or a folder standing for every `*.yaml` and
 * `*.yml` directly in it (as Lobu projects keep their models), in name order. Subfolders are not
 * read: a folder of bundles is flat, and drafts kept below it must not be applied by accident.
 */

import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Bundles, emptyBundles, readBundle } from './bundles.js';
import { displayPath, isDirectory, readReported } from './files.js';
import { report } from './issues.js';
import { describeOutside, OUTSIDE_HINT, outsideProject, type ProjectRoot } from './paths.js';
import type { ProjectProblem } from './problems.js';
import type { TomlResult } from './svc-toml.js';

const BUNDLE_FILE = /\.ya?ml$/;

export async function readBundles(
  root: ProjectRoot,
  toml: Pick<TomlResult, 'models' | 'ctx'>,
  problems: ProjectProblem[],
): Promise<Bundles> {
  const dir = root.dir;
  const bundles = emptyBundles();
  // A file named both on its own and through its folder is read once: its slugs would clash with themselves.
  const read = new Set<string>();
  for (const model of toml.models) {
    const say = (message: string, hint?: string) => report(toml.ctx, model.path, 'value', message, hint);
    const path = resolve(dir, model.file);
    const outside = await outsideProject(root, path);
    if (outside) {
      say(`memory bundle "${model.file}" ${describeOutside(outside)}`, OUTSIDE_HINT);
      continue;
    }
    let files = [path];
    if (await isDirectory(path)) {
      const names = (await readdir(path, { withFileTypes: true }))
        .filter((entry) => BUNDLE_FILE.test(entry.name) && !entry.isDirectory())
        .map((entry) => entry.name)
        .sort();
      if (names.length === 0) {
        say(`memory bundle folder "${model.file}" holds no *.yaml or *.yml file`);
        continue;
      }
      files = names.map((name) => join(path, name));
    }
    for (const file of files) {
      if (read.has(file)) continue;
      read.add(file);
      const shown = displayPath(dir, file);
      const named = file === path ? model.file : shown;
      // A file of the folder may itself be a link that leads out.
      const link = file === path ? null : await outsideProject(root, file);
      if (link) {
        say(`memory bundle "${shown}" (in "${model.file}") ${describeOutside(link)}`, OUTSIDE_HINT);
        continue;
      }
      let unreadable = false;
      const source = await readReported(file, (message) => {
        unreadable = true;
        say(`memory bundle "${named}" ${message}`);
      });
      if (unreadable) continue;
      if (source === null) say(`memory bundle "${named}" not found`);
      else readBundle(shown, source, problems, bundles);
    }
  }
  return bundles;
}
