// A connector as plain JavaScript data and functions, with no SDK import and no authenticate.
export default {
  definition: {
    key: 'plain',
    name: 'Plain',
    version: '0.1.0',
    authSchema: { methods: [{ type: 'none' }, { type: 'oauth', provider: 'example', requiredScopes: [] }] },
    feeds: { once: { key: 'once', name: 'Once' } },
  },
  async sync() {
    return {
      events: [{ origin_id: 'only', payload_text: "it's here", occurred_at: '2026-11-23T08:00:00Z' }],
      checkpoint: null,
    };
  },
  async execute() {
    return { success: false, error: 'plain has no actions' };
  },
};
