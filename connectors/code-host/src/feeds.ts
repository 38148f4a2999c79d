/** The two feeds, and how their events link to members and repositories. */

import { configSchema, type EntityLinkRule, type FeedWithHandler, IDENTITY } from '@svc/connector-sdk';
import { feedConfig } from './config.js';
import { ISSUES, PULL_REQUESTS, syncListing } from './sync.js';

/**
 * The author is a member, recognised by login or by numeric id: the id survives a rename, the login
 * is what other sources (a chat mention, a commit trailer) know. Both are normalised in `items.ts`.
 */
const author: EntityLinkRule = {
  entityType: 'member',
  autoCreate: true,
  titlePath: 'author_name',
  identities: [
    { namespace: IDENTITY.CODE_HOST_LOGIN, eventPath: 'payload_data.user.login' },
    { namespace: IDENTITY.CODE_HOST_USER_ID, eventPath: 'payload_data.user.id' },
  ],
  traits: {
    // A login is a poor name: another source's real name, once there, is kept.
    name: { eventPath: 'author_name', behavior: 'init_only' },
    avatar_url: { eventPath: 'payload_data.user.avatar_url', behavior: 'prefer_non_empty' },
    code_host_profile: { eventPath: 'payload_data.user.html_url', behavior: 'prefer_non_empty' },
  },
};

/** Only where a repository entity already exists: a repository is not someone to create. */
const repository: EntityLinkRule = {
  entityType: 'repository',
  autoCreate: false,
  identities: [{ namespace: IDENTITY.CODE_HOST_REPO_FULL_NAME, eventPath: 'payload_data.repo.full_name' }],
};

const config = configSchema(feedConfig);

export const issuesFeed: FeedWithHandler = {
  key: 'issues',
  name: 'Issues',
  description: 'Issues of a repository, each emitted again whenever it changes. Pull requests are left out.',
  requiredScopes: ['repo'],
  displayNameTemplate: 'Issues of {repo}',
  configSchema: config,
  eventKinds: {
    issue: { description: 'An issue, as it is after its latest change', entityLinks: [author, repository] },
  },
  sync: syncListing(ISSUES),
};

export const pullRequestsFeed: FeedWithHandler = {
  key: 'pull_requests',
  name: 'Pull requests',
  description: 'Pull requests of a repository, each emitted again whenever it changes.',
  requiredScopes: ['repo'],
  displayNameTemplate: 'Pull requests of {repo}',
  configSchema: config,
  eventKinds: {
    pull_request: {
      description: 'A pull request, as it is after its latest change',
      entityLinks: [author, repository],
    },
  },
  sync: syncListing(PULL_REQUESTS),
};
