import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyInProcess } from '../../test/apply-in-process.js';
import { loadProject } from './load.js';
import { formatProblem, ProjectError } from './problems.js';
import { writeProject } from './test/fixture.js';

/**
 * Paths in a project stay inside it (issue 8, item 4): an absolute path, a `..` path or a symbolic
 * link that leads elsewhere is a problem naming the path, and the file there is never read, so its
 * content cannot reach an error message or an upload.
 */

const CANARY = 'canary-outside-3f9a1c';
let outside: string;
beforeAll(async () => {
  outside = await mkdtemp(join(tmpdir(), 'svc-outside-'));
  await writeFile(join(outside, 'shadow'), `root:${CANARY}:19000:0:99999:7:::\n`);
  await writeFile(join(outside, 'bundle.yaml'), `version: 2\nentities:\n  - {slug: ${CANARY}, name: X}\n`);
  await mkdir(join(outside, 'agent'));
  await writeFile(join(outside, 'agent', 'IDENTITY.md'), `# ${CANARY}\n`);
  await writeFile(join(outside, 'SOUL.md'), `${CANARY}\n`);
});
afterAll(() => rm(outside, { recursive: true, force: true }));

/** Loads the project and answers its printed problems, or throws if it loaded. */
async function printed(dir: string): Promise<string[]> {
  try {
    await loadProject(dir, {});
  } catch (error) {
    if (error instanceof ProjectError) return error.problems.map(formatProblem);
    throw error;
  }
  throw new Error('expected the project to fail loading');
}

const HINT = '(paths are relative to the project folder and must stay inside it)';

describe('paths outside the project', () => {
  it('refuses an absolute memory bundle path without reading it', async () => {
    const file = join(outside, 'shadow');
    const dir = await writeProject({ 'svc.toml': `[memory]\nmodels = [${JSON.stringify(file)}]\n` });
    const lines = await printed(dir);
    expect(lines).toEqual([`svc.toml:2:11: memory bundle "${file}" is outside the project folder ${HINT}`]);
    expect(lines.join('\n')).not.toContain(CANARY);
  });

  it('refuses a ".." memory bundle path', async () => {
    const dir = await writeProject({});
    const up = relative(dir, join(outside, 'bundle.yaml'));
    await writeFile(join(dir, 'svc.toml'), `[memory]\nmodels = ["${up}"]\n`);
    const lines = await printed(dir);
    expect(lines).toEqual([`svc.toml:2:11: memory bundle "${up}" is outside the project folder ${HINT}`]);
    expect(lines.join('\n')).not.toContain(CANARY);
  });

  it('refuses a bundle that is a symbolic link inside the project to a file outside', async () => {
    const dir = await writeProject({ 'svc.toml': '[memory]\nmodels = ["models/crm.yaml"]\n' });
    await mkdir(join(dir, 'models'));
    await symlink(join(outside, 'bundle.yaml'), join(dir, 'models/crm.yaml'));
    const lines = await printed(dir);
    expect(lines).toEqual([
      `svc.toml:2:11: memory bundle "models/crm.yaml" leads outside the project folder through a symbolic link ${HINT}`,
    ]);
    expect(lines.join('\n')).not.toContain(CANARY);
  });

  it('refuses an agent dir that is absolute, goes up with "..", or is a link to a folder outside', async () => {
    const dir = await writeProject({ 'agents/linked/.keep': '' });
    const up = relative(dir, join(outside, 'agent'));
    await symlink(join(outside, 'agent'), join(dir, 'agents/out'));
    await writeFile(
      join(dir, 'svc.toml'),
      [
        '[agents.a]',
        `dir = ${JSON.stringify(join(outside, 'agent'))}`,
        '[agents.b]',
        `dir = "${up}"`,
        '[agents.c]',
        'dir = "agents/out"',
        '[agents.out]',
        '',
      ].join('\n'),
    );
    const lines = await printed(dir);
    expect(lines).toEqual([
      `svc.toml:2:7: agents.a.dir: folder "${join(outside, 'agent')}" is outside the project folder ${HINT}`,
      `svc.toml:4:7: agents.b.dir: folder "${up}" is outside the project folder ${HINT}`,
      `svc.toml:6:7: agents.c.dir: folder "agents/out" leads outside the project folder through a symbolic link ${HINT}`,
      // The default folder, agents/<id>, is held to the same rule.
      `svc.toml:7:1: agents.out: folder "agents/out" leads outside the project folder through a symbolic link ${HINT}`,
    ]);
    expect(lines.join('\n')).not.toContain(CANARY);
  });

  it('refuses a Markdown file that is a link to a file outside', async () => {
    const dir = await writeProject({ 'svc.toml': '[agents.a]\n', 'agents/a/IDENTITY.md': '# A\n' });
    await symlink(join(outside, 'SOUL.md'), join(dir, 'agents/a/SOUL.md'));
    const lines = await printed(dir);
    expect(lines).toEqual([
      'agents/a/SOUL.md:1:1: SOUL.md leads outside the project folder through a symbolic link; it is not read',
    ]);
  });

  it('accepts links that stay inside the project, and a project folder reached through a link', async () => {
    const real = await writeProject({
      'svc.toml': '[agents.a]\ndir = "shared/a"\n[memory]\nmodels = ["models/crm.yaml"]\n',
      'shared/a/SOUL.md': 'Be kind.\n',
      'shared/identity.md': '# A\n',
      'shared/crm.yaml': 'version: 2\nentities:\n  - {slug: customer, name: Customer}\n',
    });
    await mkdir(join(real, 'models'));
    await symlink(join(real, 'shared/crm.yaml'), join(real, 'models/crm.yaml'));
    await symlink('../identity.md', join(real, 'shared/a/IDENTITY.md'));
    const viaLink = `${real}-link`;
    await symlink(real, viaLink);
    try {
      const project = await loadProject(viaLink, {});
      expect(project.agents[0]?.config['SOUL.md']).toBe('Be kind.\n');
      expect(project.agents[0]?.config['IDENTITY.md']).toBe('# A\n');
      expect(project.entityTypes.map((e) => e.slug)).toEqual(['customer']);
    } finally {
      await rm(viaLink);
    }
  });

  it('svc apply prints the problems and nothing of the outside files, and sends nothing', async () => {
    const dir = await writeProject({ 'agents/a/IDENTITY.md': '# A\n' });
    await symlink(join(outside, 'SOUL.md'), join(dir, 'agents/a/SOUL.md'));
    await symlink(join(outside, 'bundle.yaml'), join(dir, 'linked.yaml'));
    const models = [join(outside, 'shadow'), relative(dir, join(outside, 'bundle.yaml')), 'linked.yaml'];
    await writeFile(
      join(dir, 'svc.toml'),
      `[agents.a]\n[agents.b]\ndir = "${relative(dir, join(outside, 'agent'))}"\n[memory]\nmodels = ${JSON.stringify(models)}\n`,
    );
    // No server listens at this URL: a request would fail the run with another message.
    const run = await applyInProcess(
      dir,
      { dryRun: true },
      { SVC_URL: 'http://127.0.0.1:9', SVC_API_TOKEN: 'x' },
    );
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/fix the 5 problems above; nothing was sent/);
    expect(`${run.out}\n${run.err}`).not.toContain(CANARY);
  });
});
