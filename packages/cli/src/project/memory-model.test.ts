import { describe, expect, it } from 'vitest';
import { loadProject } from './load.js';
import { formatProblem } from './problems.js';
import { dedent, problemsOf, writeProject } from './test/fixture.js';

const SLACK = '{ signing_secret = "$SLACK_SIGNING_SECRET", bot_token = "$SLACK_BOT_TOKEN" }';
const SECRETS = { SLACK_SIGNING_SECRET: 'set', SLACK_BOT_TOKEN: 'set' };

const TOML = dedent(`
  [agents.support]
  name = "Support"

  [[agents.support.platforms]]
  type = "team_chat"
  name = "Main"
  config = ${SLACK}

  [memory]
  models = ["models/crm.yaml"]
`);

/** The printed lines of a project whose only bundle is `bundle`. */
async function printed(bundle: string): Promise<string[]> {
  const problems = await problemsOf({ 'svc.toml': TOML, 'models/crm.yaml': dedent(bundle) }, SECRETS);
  return problems.map(formatProblem);
}

const HINT =
  '(write a JSON Schema (draft 2020-12), for example {type: object, properties: {email: {type: string}}})';

describe('memory bundles: the fields bundles write', () => {
  it('loads every new field as written', async () => {
    const dir = await writeProject({
      'svc.toml': TOML,
      'models/crm.yaml': dedent(`
        version: 2
        entities:
          - slug: person
            name: Person
            icon: "👤"
            color: "#3b82f6"
            metadata_schema:
              type: object
              properties:
                email: {type: string, format: email}
          - slug: company
            name: Company
        relationships:
          - slug: works-at
            name: Works at
            metadata_schema: {type: object, properties: {since: {type: string}}}
            rules:
              - {source: person, target: company}
              - {source: [person, company], target: [company]}
        watchers:
          - slug: digest
            name: Digest
            schedule: "0 9 * * *"
            prompt: Summarise
            agent: support
            description: Daily
            extraction_schema: {type: object, properties: {summary: {type: string}}}
            tags: [daily]
            sources: [{connector: rss}]
            notification_channel: {platform: support-team-chat-main, channel: C1}
            min_cooldown_seconds: 60
      `),
    });
    const project = await loadProject(dir, SECRETS);
    expect(project.entityTypes[0]).toMatchObject({ icon: '👤', color: '#3b82f6' });
    expect(project.relationshipTypes[0]?.rules).toEqual([
      { source: 'person', target: 'company' },
      { source: ['person', 'company'], target: ['company'] },
    ]);
    expect(project.watchers[0]).toMatchObject({ tags: ['daily'], min_cooldown_seconds: 60 });
  });

  it('knows the new keys: a misspelt one gets a hint, and rules belong to relationship types only', async () => {
    expect(
      await printed(`
        version: 2
        entities:
          - slug: person
            name: Person
            metadata_shema: {type: object}
            rules: []
      `),
    ).toEqual([
      'models/crm.yaml:5:5: unknown key "metadata_shema" in entities[0] (did you mean "metadata_schema"?)',
      'models/crm.yaml:6:5: unknown key "rules" in entities[0]',
    ]);
  });

  it('reports a metadata_schema that is not JSON Schema at the line of the wrong part', async () => {
    expect(
      await printed(`
        version: 2
        entities:
          - slug: person
            name: Person
            metadata_schema:
              type: object
              properties:
                email:
                  type: strnig
      `),
    ).toEqual([
      `models/crm.yaml:9:17: entities[0].metadata_schema.properties.email.type: is not valid JSON Schema: must be one of array, boolean, integer, null, number, object, string ${HINT}`,
    ]);
  });

  it('reports an extraction_schema that is not JSON Schema, or not an object schema', async () => {
    const watcher = (schema: string) => `
        version: 2
        watchers:
          - slug: digest
            name: Digest
            schedule: "0 9 * * *"
            prompt: Summarise
            agent: support
            extraction_schema: ${schema}
      `;
    expect(await printed(watcher('{type: strnig}'))).toEqual([
      `models/crm.yaml:8:31: watchers[0].extraction_schema.type: is not valid JSON Schema: must be one of array, boolean, integer, null, number, object, string ${HINT}`,
    ]);
    expect(await printed(watcher('{type: array, items: {type: string}}'))).toEqual([
      'models/crm.yaml:8:24: watchers[0].extraction_schema: the root must be "type": "object" (a watcher\'s result is stored as an object: type: object, with properties naming its fields)',
    ]);
    expect(await printed(watcher('{$ref: "#/$defs/missing"}'))).toEqual([
      `models/crm.yaml:8:24: watchers[0].extraction_schema: is not valid JSON Schema: can't resolve reference #/$defs/missing from id # ${HINT}`,
    ]);
  });

  it('reports a rule naming an entity type no bundle declares, at the slug', async () => {
    expect(
      await printed(`
        version: 2
        entities:
          - {slug: person, name: Person}
        relationships:
          - slug: works-at
            name: Works at
            rules:
              - {source: person, target: compnay}
              - {source: [person, robot], target: person}
      `),
    ).toEqual([
      'models/crm.yaml:8:34: relationships[0].rules[0].target: relationship type "works-at" allows entity type "compnay", which no bundle declares (declared entity types: "person"; declare "compnay" under entities: or fix the name)',
      'models/crm.yaml:9:27: relationships[0].rules[1].source[1]: relationship type "works-at" allows entity type "robot", which no bundle declares (declared entity types: "person"; declare "robot" under entities: or fix the name)',
    ]);
  });

  it("reports a notification_channel platform that is not one of the agent's", async () => {
    expect(
      await printed(`
        version: 2
        watchers:
          - slug: digest
            name: Digest
            schedule: "0 9 * * *"
            prompt: Summarise
            agent: support
            notification_channel: {platform: slack, channel: C1}
      `),
    ).toEqual([
      'models/crm.yaml:8:38: watchers[0].notification_channel.platform: watcher "digest" posts to platform "slack", which is not a platform of agent "support" (the stable IDs of its platforms: "support-team-chat-main")',
    ]);
  });
});
