/**
 * A body for each operation that takes one, as the reference's "Test Request" starts from: what a
 * person would plausibly send first, valid against the operation's schema (the linters in
 * openapi-lint.test.ts check each one against it). Secret values are placeholders, never real.
 * Operations whose body has no fields (approve, cancel, sync...) need none.
 */
export const REQUEST_EXAMPLES: Record<string, unknown> = {
  upsertOrg: { slug: 'acme', name: 'Acme' },
  createToken: { name: 'deploy from CI', scopes: ['read', 'write'], expiresInDays: 90 },
  signIn: { credential: 'svc_YOUR_TOKEN' },
  moveSession: { org: 'default' },
  upsertAgent: { agentId: 'support', name: 'Support', description: 'Answers customer questions' },
  patchAgentSettings: { 'IDENTITY.md': '# Support\nYou answer customer questions.', guardrails: null },
  checkAgentSettings: { mcpServers: { docs: { url: 'https://mcp.example.com/mcp' } } },
  upsertPlatform: {
    type: 'team_chat',
    name: 'Main',
    config: {
      signing_secret: '$SLACK_SIGNING_SECRET',
      bot_token: '$SLACK_BOT_TOKEN',
    },
  },
  putSecret: { value: 'the secret value' },
  manageEntitySchema: {
    action: 'upsert',
    kind: 'entity_type',
    item: { slug: 'customer', name: 'Customer' },
  },
  putApplyManifest: {
    project: 'support-desk',
    agents: ['support'],
    platforms: ['support-team-chat-main'],
    entityTypes: ['customer'],
    relationshipTypes: [],
    watchers: [],
  },
  sendMessage: { platform: 'api', content: 'What changed in the billing docs this week?' },
  decideApproval: { decision: 'approve' },
  receiveWebhook: { type: 'url_verification', challenge: 'a-challenge-from-slack' },
  installConnector: { package: 'rss' },
  refreshConnector: { connectionId: 12 },
  createConnection: { connectorKey: 'rss', displayName: 'Product blog' },
  updateConnection: { status: 'paused' },
  revokeConnection: { reason: 'the account was closed' },
  updateFeed: { config: { url: 'https://example.com/feed.xml' }, syncIntervalMs: 3_600_000 },
  startOAuth: { scopes: ['repo'] },
  captureBrowserSession: { cdpUrl: 'http://127.0.0.1:9222' },
  signalAuthRun: { code: '123456' },
  runAction: { input: { title: 'Follow up with Acme' } },
  updateWatcher: { status: 'paused' },
  createRelationship: { type: 'works_at', sourceEntityId: 1, targetEntityId: 2 },
};

type Media = { schema?: unknown; example?: unknown };
type Operation = { operationId?: string; requestBody?: { content?: Record<string, Media> } };

/** Puts each example on its operation's JSON body (and on a multipart one, as form fields). */
export function withRequestExamples(paths: Record<string, Record<string, Operation>>): void {
  for (const operation of Object.values(paths).flatMap((methods) => Object.values(methods))) {
    const example = operation.operationId ? REQUEST_EXAMPLES[operation.operationId] : undefined;
    const content = operation.requestBody?.content;
    if (example === undefined || !content) continue;
    for (const type of ['application/json', 'multipart/form-data']) {
      const media = content[type];
      if (media) media.example = example;
    }
  }
}
