/**
 * code-host: the issues and pull requests of a repository on GitHub, or any host that speaks its REST
 * API, as events linked to members; and actions that open issues and label them.
 */

import { configSchema, defineConnector } from '@svc/connector-sdk';
import { addLabel, createIssue } from './actions.js';
import { connectionOptions } from './config.js';
import { issuesFeed, pullRequestsFeed } from './feeds.js';

export const codeHost = defineConnector({
  key: 'code-host',
  name: 'Code host',
  description: 'Issues and pull requests of a GitHub-REST-compatible code host, and actions on them',
  version: '0.1.0',
  faviconDomain: 'github.com',
  authSchema: {
    methods: [
      {
        type: 'oauth',
        provider: 'github',
        requiredScopes: ['repo'],
        required: true,
        description: 'A GitHub account that can read the repository and, for the actions, write its issues',
        authorizationUrl: 'https://github.com/login/oauth/authorize',
        tokenUrl: 'https://github.com/login/oauth/access_token',
        userinfoUrl: 'https://api.github.com/user',
        tokenEndpointAuthMethod: 'client_secret_post',
        setupInstructions:
          'Create an OAuth app under GitHub Settings > Developer settings, with the callback URL of this server.',
      },
    ],
  },
  // The actions' repository and API; a feed carries its own in its config.
  optionsSchema: configSchema(connectionOptions),
  feeds: { issues: issuesFeed, pull_requests: pullRequestsFeed },
  actions: { create_issue: createIssue, add_label: addLabel },
});

export default codeHost;
