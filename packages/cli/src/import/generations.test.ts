import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadProject } from '../project/load.js';
import { dedent, writeProject } from '../project/test/fixture.js';
import { fixture, readTree, runImport } from './test/run-import.js';

/**
 * Each generation of lobu.toml, from Lobu's own examples of the time (fixtures/), converts into a
 * project that svc's loader accepts, with each class of key where the report says it went.
 */

const entry = (run: Awaited<ReturnType<typeof runImport>>, lobu: string) =>
  run.json?.entries.find((e) => e.lobu === lobu);
const commands = (run: Awaited<ReturnType<typeof runImport>>) => run.json?.steps.map((s) => s.command) ?? [];

async function convert(dir: string) {
  const out = `${dir}-svc`;
  const run = await runImport({ dir, json: true });
  expect(run.code, run.out + run.err).toBe(0);
  expect(run.json?.problems).toEqual([]);
  const files = await readTree(out);
  const toml = parseToml(files['svc.toml'] as string) as any;
  // The loader accepts it as written; only the secrets are left to set.
  await loadProject(out, {}, { requireSecrets: false });
  return { run, out, files, toml };
}

describe('svc import lobu: the generations of lobu.toml', () => {
  it('reads the first generation: one [agent], [[providers]], [skills] enabled, [platforms] booleans', async () => {
    // From Lobu's `lobu init` template (March 2026).
    const dir = await writeProject({
      'lobu.toml': dedent(`
        [agent]
        name = "support-bot"
        description = "Answers questions"

        [[providers]]
        id = "groq"
        model = "llama-3.3-70b-versatile"

        [skills]
        enabled = ["github"]

        [network]
        allowed = ["api.github.com", "registry.npmjs.org", "pypi.org"]

        [worker]
        nix_packages = ["python311", "ffmpeg"]
        timeout_minutes = 5

        [platforms]
        api = true
        telegram = true
      `),
      'IDENTITY.md': '# Support bot\n',
      'SOUL.md': 'Be brief.\n',
    });
    const { run, toml, files } = await convert(dir);
    const agent = toml.agents['support-bot'];
    expect(agent.name).toBe('support-bot');
    expect(agent.providers).toEqual([{ key: 'groq', secret_ref: '$GROQ_API_KEY' }]);
    expect(agent.skills.list).toEqual([{ name: 'github', enabled: true }]);
    expect(agent.nix).toEqual({ packages: ['python311', 'ffmpeg'] });
    expect(agent.platforms).toEqual([
      {
        type: 'messenger',
        config: { bot_token: '$TELEGRAM_BOT_TOKEN', secret_token: '$TELEGRAM_SECRET_TOKEN' },
      },
    ]);
    expect(files['agents/support-bot/IDENTITY.md']).toBe('# Support bot\n');
    expect(entry(run, 'platforms.api')?.outcome).toBe('dropped');
    expect(entry(run, 'agent.name')).toMatchObject({ outcome: 'kept', at: 'lobu.toml:2' });
    expect(entry(run, 'worker.timeout_minutes')).toMatchObject({ outcome: 'dropped', at: 'lobu.toml:17' });
    expect(entry(run, 'skills.enabled[0]')).toMatchObject({ outcome: 'translated', at: 'lobu.toml:10' });
  });

  it('reads platforms as [agents.x.platforms.<type>] tables, with the folder "."', async () => {
    const dir = await fixture('customer-support-tables');
    const { run, toml, files } = await convert(dir);
    const agent = toml.agents['customer-support'];
    expect(agent.platforms.map((p: any) => p.type)).toEqual(['team_chat', 'messenger']);
    expect(agent.platforms[1].config.secret_token).toBe('$TELEGRAM_SECRET_TOKEN');
    expect(entry(run, 'agents.customer-support.platforms.telegram.mode')).toMatchObject({
      outcome: 'dropped',
      at: 'lobu.toml:27',
    });
    // The Telegram secret token is a step with the command that makes one.
    expect(commands(run)).toContain('openssl rand -hex 32 | svc secrets set TELEGRAM_SECRET_TOKEN');
    expect(files['agents/customer-support/SOUL.md']).toBeDefined();
    expect(entry(run, 'skill support-workflows')?.outcome).toBe('dropped');
    expect(entry(run, 'agents.customer-support.skills.enabled[1]')?.svc).toBe(
      'svc.toml agents.customer-support.skills.list[1]',
    );
  });

  it('reads [[agents.x.connections]], [[schedules]] (a default channel mis-nested under an MCP table) and [memory.owletto]', async () => {
    const dir = await fixture('careops-connections');
    const { run, toml, files } = await convert(dir);
    const agent = toml.agents.careops;
    expect(agent.platforms).toEqual([
      {
        type: 'team_chat',
        config: { bot_token: '$SLACK_BOT_TOKEN', signing_secret: '$SLACK_SIGNING_SECRET' },
      },
    ]);
    // TOML put default_schedule_channel into [agents.careops.skills.mcp.deepwiki]: not copied there.
    expect(agent.skills.mcp.deepwiki).toEqual({ url: 'https://mcp.deepwiki.com/mcp' });
    const misnested = run.json?.entries.filter(
      (e) => e.lobu === 'agents.careops.skills.mcp.deepwiki.default_schedule_channel',
    );
    expect(misnested?.map((e) => e.outcome)).toEqual(['translated', 'dropped']);
    expect(misnested?.[1]?.why).toContain('a reference');
    const schedules = parseYaml(files['models/lobu-schedules.yaml'] as string);
    expect(schedules.watchers).toEqual([
      {
        slug: 'morning-standup',
        name: 'morning-standup',
        schedule: '0 9 * * 1-5',
        prompt: "Summarize today's appointments and any patient follow-ups that need attention before noon.",
        agent: 'careops',
        timezone: 'America/Los_Angeles',
      },
      expect.objectContaining({ slug: 'weekly-review', agent: 'careops' }),
    ]);
    expect(commands(run)).toContain('svc watchers pause weekly-review');
    // [memory.owletto] models = "./models": every bundle listed, the v1 files regrouped.
    expect(toml.memory.models).toContain('models/patient.yaml');
    expect(toml.memory.models).toContain('models/lobu-schedules.yaml');
    const patient = parseYaml(files['models/patient.yaml'] as string);
    expect(patient.version).toBe(2);
    expect(patient.entities[0]).toMatchObject({ slug: 'patient', name: expect.any(String) });
    const tracker = parseYaml(files['models/patient-care-tracker.yaml'] as string);
    expect(tracker.watchers[0].agent).toBe('careops'); // the project's one agent
    expect(entry(run, 'memory.owletto')?.outcome).toBe('translated');
    expect(commands(run)).toContain(`svc link --dir ${dir}-svc --org careops`);
  });

  it('reads [[agents.x.platforms]] with camelCase config, WhatsApp, tools, [memory] and its connectors', async () => {
    const dir = await fixture('lobu-crm-platforms');
    const { run, toml, files } = await convert(dir);
    const agent = toml.agents.crm;
    expect(agent.platforms).toEqual([
      {
        type: 'messenger',
        name: 'telegram',
        config: { bot_token: '$TELEGRAM_BOT_TOKEN', secret_token: '$TELEGRAM_SECRET_TOKEN' },
      },
      {
        type: 'messenger',
        name: 'whatsapp',
        config: {
          flavor: 'whatsapp',
          access_token: '$WHATSAPP_ACCESS_TOKEN',
          phone_number_id: '$WHATSAPP_PHONE_NUMBER_ID',
          verify_token: '$WHATSAPP_WEBHOOK_VERIFY_TOKEN',
          app_secret: '$WHATSAPP_APP_SECRET',
        },
      },
      {
        type: 'team_chat',
        config: { bot_token: '$SLACK_BOT_TOKEN', signing_secret: '$SLACK_SIGNING_SECRET' },
      },
    ]);
    expect(entry(run, 'agents.crm.platforms[3]')?.why).toContain('no "discord" platform');
    expect(entry(run, 'agents.crm.platforms[2].channels')?.outcome).toBe('dropped');
    expect(agent.pre_approved_tools).toEqual(['github.list_issues', 'linear.*']);
    expect(agent.tools).toEqual({ allowed: ['github.*'] });
    expect(agent.network.allowed_domains).toContain('*.github.com');
    expect(agent.provider_model_preferences).toEqual({ 'z-ai': { model: 'z-ai/glm-4.7' } });
    expect(agent.model_selection).toEqual({ mode: 'auto', providers: ['z-ai'] });
    expect(commands(run)).toContain(
      // Values are POSIX shell words: single-quoted unless plain, so pasting runs nothing else.
      "svc connection create github --name 'GitHub — lobu-ai/lobu' --config repo_owner=lobu-ai --config repo_name=lobu --credential GITHUB_CLIENT_ID=GITHUB_CLIENT_ID --credential GITHUB_CLIENT_SECRET=GITHUB_CLIENT_SECRET",
    );
    expect(commands(run)).toContain('SVC_PROVIDER_Z_AI_BASE_URL=https://api.z.ai/api/paas/v4 svc server');
    expect(entry(run, 'skill crm-ops')?.outcome).toBe('dropped');
    // v2 bundle: Lobu-only watcher fields dropped, at their lines.
    expect(entry(run, 'models/schema.yaml watcher funnel-digest reaction_script')).toMatchObject({
      outcome: 'dropped',
      at: 'models/schema.yaml:118',
    });
    const schema = parseYaml(files['models/schema.yaml'] as string);
    expect(schema.watchers[0]).not.toHaveProperty('reaction_script');
    expect(schema.watchers[0].notification_channel).toBe('both');
    expect(join(dir, 'lobu.toml')).toBeTruthy();
  });
});
