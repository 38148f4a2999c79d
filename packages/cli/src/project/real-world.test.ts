import { describe, expect, it } from 'vitest';
import { loadProject } from './load.js';
import { formatProblem, type ProjectProblem } from './problems.js';
import { dedent, problemsOf, writeProject } from './test/fixture.js';

/**
 * Messages that misreported real-world project files (issue 8, item 7): each case is the exact line
 * svc prints now, beside the line it printed before.
 */

const lines = (problems: ProjectProblem[]) => problems.map(formatProblem);

describe('golden messages for real-world project files', () => {
  const cases: { name: string; toml: string; before: string[]; after: string[] }[] = [
    {
      name: 'a provider without secret_ref',
      toml: `
        [agents.support]
        name = "Support"

        [[agents.support.providers]]
        key = "openai"
      `,
      before: [
        'svc.toml:4:1: agents.support.providers[0].secret_ref: must be a reference such as "$OPENAI_API_KEY" (the value itself belongs in the environment, never in svc.toml)',
      ],
      after: [
        'svc.toml:4:1: agents.support.providers[0].secret_ref: is required (e.g. secret_ref = "$OPENAI_API_KEY", with the key itself in the environment)',
      ],
    },
    {
      name: 'an [egress] table without mode',
      toml: `
        [agents.support]
        name = "Support"

        [agents.support.egress]
        allowed_ports = [443]
      `,
      before: ['svc.toml:4:1: agents.support.egress.mode: expected one of "direct"|"proxy"|"none"'],
      after: ['svc.toml:4:1: agents.support.egress.mode: is required'],
    },
    {
      name: 'a [model_selection] table without mode',
      toml: `
        [agents.support.model_selection]
        providers = ["openai"]
      `,
      before: [
        "svc.toml:1:1: agents.support.model_selection.mode: invalid discriminator value. Expected 'auto' | 'pinned'",
      ],
      after: ['svc.toml:1:1: agents.support.model_selection.mode: is required'],
    },
    {
      name: 'an old-style [agents.<id>.platforms.<name>] table',
      toml: `
        [agents.support]
        name = "Support"

        [agents.support.platforms.slack]
        bot_token = "$SLACK_BOT_TOKEN"
      `,
      before: [
        'svc.toml:1:1: platforms must be an array of tables: [[agents.<id>.platforms]]',
        'svc.toml:5:13: environment variable SLACK_BOT_TOKEN is not set (referenced by agents.support.platforms.slack.bot_token)',
      ],
      after: [
        // Named at its own header, with the entry it becomes: the type as written is an alias svc reads.
        'svc.toml:4:1: [agents.support.platforms.slack]: each platform is an entry of the array of tables [[agents.support.platforms]] (did you mean [[agents.support.platforms]] with type = "slack", and these keys under [agents.support.platforms.config]?)',
        'svc.toml:5:13: environment variable SLACK_BOT_TOKEN is not set (referenced by agents.support.platforms.slack.bot_token)',
      ],
    },
    {
      name: 'an old-style [agents.<id>.providers.<key>] table, with no [agents.<id>] header',
      toml: `
        [agents.support.providers.openai]
        secret_ref = "$OPENAI_API_KEY"
      `,
      before: ['svc.toml:1:1: providers must be an array of tables: [[agents.<id>.providers]]'],
      after: [
        'svc.toml:1:1: agents.support.providers must be an array of tables: [[agents.support.providers]] (write each one as its own [[agents.support.providers]] table, with key and secret_ref)',
      ],
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const printed = lines(await problemsOf({ 'svc.toml': dedent(c.toml) }, { OPENAI_API_KEY: 'x' }));
      expect(printed).toEqual(c.after);
      expect(printed).not.toEqual(c.before);
    });
  }

  it('reports a syntax error in svc.toml and the problems of its bundles in one run', async () => {
    const problems = await problemsOf({
      'svc.toml': dedent(`
        [agents.support]
        name = "Support

        [memory]
        models = ["models/crm.yaml", "models/gone.yaml"]
      `),
      'models/crm.yaml': 'version: 2\nentities:\n  - slug: Bad Slug\n    name: X\n',
    });
    // Before: only the first line, and the bundle's problems once svc.toml was fixed.
    expect(lines(problems)).toEqual([
      'svc.toml:2:16: invalid TOML: control characters are not allowed in strings',
      'svc.toml:5:30: memory bundle "models/gone.yaml" not found',
      'models/crm.yaml:3:11: entities[0].slug: must be lowercase letters, digits, "_" or "-", at most 63',
    ]);
  });

  it('with svc.toml unreadable, does not blame watchers for naming agents it could not read', async () => {
    const problems = await problemsOf({
      'svc.toml': '[memory]\nmodels = ["w.yaml"]\n\n[agents.support]\nname = = "x"\n',
      'w.yaml': dedent(`
        version: 2
        watchers:
          - {slug: digest, name: Digest, schedule: "0 9 * * *", prompt: p, agent: support}
      `),
    });
    expect(lines(problems)).toEqual(['svc.toml:5:8: invalid TOML: invalid value']);
  });

  it('checks no bundle when the syntax error is in [memory] itself: the list cannot be trusted', async () => {
    const problems = await problemsOf({
      'svc.toml': '[agents.support]\n\n[memory]\nmodels = ["a.yaml",\n',
      'a.yaml': 'version: 1\n',
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'svc.toml', line: 5 });
    expect(problems[0]?.message).toMatch(/^invalid TOML: /);
  });
});

describe('domains written with a leading dot', () => {
  it('are taken as the wildcard form "*.example.com", in allowed and denied domains', async () => {
    const dir = await writeProject({
      'svc.toml': dedent(`
        [agents.support.network]
        allowed_domains = [".github.com", "api.example.com", "*.example.org"]
        denied_domains = [".evil.example"]
      `),
    });
    const project = await loadProject(dir, {});
    expect(project.agents[0]?.config.networkConfig).toEqual({
      allowedDomains: ['*.github.com', 'api.example.com', '*.example.org'],
      deniedDomains: ['*.evil.example'],
    });
  });

  it('other malformed domains are refused, naming the wildcard form', async () => {
    const problems = await problemsOf({
      'svc.toml': '[agents.support.network]\nallowed_domains = ["..github.com", ".GitHub.com"]\n',
    });
    expect(lines(problems)).toEqual([
      'svc.toml:2:20: agents.support.network.allowed_domains[0]: must be a lowercase domain name such as "api.example.com"; the wildcard form is "*.example.com"',
      'svc.toml:2:36: agents.support.network.allowed_domains[1]: must be a lowercase domain name such as "api.example.com"; the wildcard form is "*.example.com"',
    ]);
  });
});
