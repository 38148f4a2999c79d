// Generated from the gateway's /openapi.json by openapi-typescript: do not edit.
// Update: SVC_UPDATE_API_TYPES=1 npx vitest run packages/web/src/api/schema.test.ts
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The process is alive
         * @description Answers 200 while the process runs, without touching the database: for a liveness probe.
         */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The database is reachable
         * @description Answers 200 once the database answers a query, 503 while it does not or while the server shuts down: for a readiness probe or a load balancer.
         */
        get: operations["readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description The server's counters and histograms in the Prometheus text format, for a scraper on the operator's network.
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/orgs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List orgs (deployment admin)
         * @description Every org of the deployment, with its slug and name. Only the deployment admin (the admin password) may list them.
         */
        get: operations["listOrgs"];
        put?: never;
        /**
         * Create an org, or rename it (deployment admin)
         * @description Creates the org with this slug (201), or renames it (200). Only the deployment admin (the admin password) may.
         */
        post: operations["upsertOrg"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/whoami": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who the bearer credentials belong to
         * @description Whether the bearer credentials are a token or the admin password, their org and their scopes: what a client checks before it starts.
         */
        get: operations["whoami"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the org's API tokens (never their secrets)
         * @description The org's tokens with their names, scopes, expiry, and when they were last used or revoked. Secrets are never shown again.
         */
        get: operations["listTokens"];
        put?: never;
        /**
         * Create an API token; the secret is in this answer only
         * @description A new token with the given scopes. Its `secret` is in this answer only; the server keeps a digest of it. A name that an active token of the org has answers 409.
         */
        post: operations["createToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/tokens/{tokenId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API token; it stops working at once
         * @description Every replica stops accepting the token when this answers. Revoking a revoked token answers `unchanged`.
         */
        delete: operations["revokeToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The console session this request came with, and its CSRF token
         * @description The console's session of this cookie: who signed in, the org it shows, and the CSRF token that the console's writes carry.
         */
        get: operations["getSession"];
        put?: never;
        /**
         * Sign in to the console: exchange the admin password or an API token for a session cookie
         * @description The answer sets the `svc_session` cookie (HttpOnly, SameSite=Strict; over HTTPS Secure and named `__Host-svc_session`, or `__Secure-svc_session` under a base path), valid 12 h and never past the token's own expiry. A session can do exactly what its token's scopes allow; the admin password's acts as admin on every org, in `org` (default `default`) for the routes whose path has no org. Failed attempts count against the same per-address budget as bearer values (429).
         */
        post: operations["signIn"];
        /**
         * Sign out: the session ends on every replica and its cookie is cleared
         * @description Ends the console session on every replica and clears its cookie. A request without a session (a bearer token, no cookie) answers 404.
         */
        delete: operations["signOut"];
        options?: never;
        head?: never;
        /**
         * Move an admin's console session to another org
         * @description Points the console session at another org; only a session of the deployment admin may.
         */
        patch: operations["moveSession"];
        trace?: never;
    };
    "/api/{org}/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every agent of the org, optionally with settings and platforms, in one answer
         * @description The org's agents; `include=config` adds their settings and `include=platforms` their chat platforms, so that one call shows everything `svc plan` compares.
         */
        get: operations["listAgents"];
        put?: never;
        /**
         * Create or update an agent; a repeat answers unchanged and writes nothing
         * @description Creates the agent (201) or updates it (200). Sending what is already stored answers `unchanged` and writes nothing.
         */
        post: operations["upsertAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/agents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One agent, optionally with settings and platforms
         * @description The agent; `include=config` adds its settings and `include=platforms` its chat platforms.
         */
        get: operations["getAgent"];
        put?: never;
        post?: never;
        /**
         * Delete an agent with its settings and platforms (admin; svc apply never calls this)
         * @description Removes the agent, its settings and its platforms. `svc apply` never deletes: it reports an agent that the project no longer names as drift.
         */
        delete: operations["deleteAgent"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/agents/{id}/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The 13 settings of an agent, null where unset
         * @description Every setting of the agent by name, `null` for one that is not set. Secret references are shown as written, never resolved.
         */
        get: operations["getAgentSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Replace (value), clear (null) or keep (absent) each setting
         * @description Each named setting is replaced by its value or cleared by `null`; a setting left out is kept. Answers which settings changed.
         */
        patch: operations["patchAgentSettings"];
        trace?: never;
    };
    "/api/{org}/agents/{id}/config/check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check settings as PATCH .../config would, writing nothing
         * @description Answers what `PATCH /api/:org/agents/:id/config` with the same body would refuse, and changes nothing: 400 `validation_failed` for a value no server takes, 422 `secret_reserved` or `setting_refused` (with every refused value in `errors[]`) for what this deployment does not allow (SVC_EGRESS_ALLOW, SVC_MCP_COMMANDS). The agent need not exist yet. `svc apply` calls it for every agent whose settings change, before it asks to apply.
         */
        post: operations["checkAgentSettings"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/agents/{id}/platforms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The chat platforms of an agent, each with the secret references this server cannot resolve
         * @description The agent's chat platforms with their config as written, and the secret references that this server cannot resolve yet.
         */
        get: operations["listPlatforms"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/agents/{id}/platforms/by-stable-id/{stableId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Create or update a platform by its stable ID; says whether the live worker restarts
         * @description Creates or updates the platform that this stable ID names. The answer says whether its live worker restarts to take the change.
         */
        put: operations["upsertPlatform"];
        post?: never;
        /**
         * Delete a platform (admin; svc apply never calls this, it reports drift)
         * @description Removes the platform and stops its worker. `svc apply` never deletes: it reports a platform that the project no longer names as drift.
         */
        delete: operations["deletePlatform"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/secrets/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Store an org secret; references ($NAME) of this org resolve to it before the environment
         * @description The value is encrypted at rest (AES-256-GCM) and never returned. Names of the server's own settings (SVC_*, PG*, NODE_*, DATABASE_URL) are refused with 422 `secret_reserved`.
         */
        put: operations["putSecret"];
        post?: never;
        /**
         * Delete an org secret; references to it stop resolving at once
         * @description Removes the secret. A setting or platform that refers to it stops resolving at once and says `secret_missing`.
         */
        delete: operations["deleteSecret"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The org's secrets: names and times, never values
         * @description The names of the org's secrets and when each was set. Values are never answered.
         */
        get: operations["listSecrets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/operations/manage_entity_schema": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * List, upsert or delete entity types, relationship types and watchers
         * @description `list` needs the read scope; `upsert` and `delete` need write. A list without `kind` answers all three kinds at once.
         */
        post: operations["manageEntitySchema"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/apply-manifest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What the latest svc apply to the org declared; null when none was ever recorded
         * @description The manifest that the latest `svc apply` recorded for the org, for `svc plan` to find what the project stopped naming; `null` when none was recorded.
         */
        get: operations["getApplyManifest"];
        /**
         * Record what an apply declared: the ids of the project's resources (svc apply sends it)
         * @description Replaces the org's manifest: one per org, so projects applying to one org overwrite each other's (the last apply wins). Lists are stored sorted; a repeat of the same declaration answers `unchanged` and writes nothing, `appliedAt` included.
         */
        put: operations["putApplyManifest"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a message to an agent; it is queued for the agent's next turn
         * @description On platform `api`, a message without `channel` goes to a conversation of the calling token alone (the admin password is a caller of its own): another token never sees it, and the model sees none of the other tokens' messages. `conversationId` continues one of them. **Warning:** a `channel` names a conversation shared by every token of the org that names it, its history included; use one only to share on purpose.
         *
         *     With `Idempotency-Key`, the same key, body and files from the same token within 24 hours replays the first answer (`Idempotent-Replayed: true`); the same key otherwise is 422.
         */
        post: operations["sendMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/messages/{messageId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A message's status and, once the turn completed, its reply
         * @description The message's status (`queued`, `running`, `awaiting_approval`, `completed`, `failed`), its reply once completed, its usage and its files.
         */
        get: operations["getMessage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/messages/{messageId}/files/{fileId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A file sent with a message, as it was uploaded
         * @description The bytes of a file sent with the message, with the content type it was uploaded with.
         */
        get: operations["downloadMessageFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The agent's conversations, newest first, a page at a time; with `q`, those that mention it
         * @description A token without the `read` scope sees the shared conversations and its own private ones (an `api` conversation of its messages sent without `channel`); another token's private conversation is 404 to it. Tokens with `read` (or `write`, `admin`) see every conversation of the org. With `q`, only the conversations with a message whose content or reply contains it, ignoring case (`%` and `_` are matched as written, not as wildcards).
         */
        get: operations["listConversations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/conversations/{conversationId}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A conversation's messages with their replies, oldest first, a page at a time
         * @description A token without the `read` scope sees the shared conversations and its own private ones (an `api` conversation of its messages sent without `channel`); another token's private conversation is 404 to it. Tokens with `read` (or `write`, `admin`) see every conversation of the org.
         */
        get: operations["listConversationMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/conversations/{conversationId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The conversation's events as Server-Sent Events, from any replica
         * @description Each event has an `id` (the conversation's sequence number) and JSON `data`: `message.queued`, `message.started` (`attempt`: a new attempt restarts the reply), `reply.delta` (`text`), `reply.completed`, `reply.failed` (`error`: a problem). A reconnecting client sends `Last-Event-ID` (or `?after=`) and gets every later event once. A `: ping` comment comes every 15 s. A token without the `read` scope sees the shared conversations and its own private ones (an `api` conversation of its messages sent without `channel`); another token's private conversation is 404 to it. Tokens with `read` (or `write`, `admin`) see every conversation of the org.
         */
        get: operations["streamConversationEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/approvals/{approvalId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve or reject one tool call that paused a turn; the turn resumes once all are decided
         * @description An approval belongs to one tool call and is decided once. Undecided, it expires as rejected after `SVC_APPROVAL_TTL` (default 24 h). A rejection is reported to the model as refused, with the reason. A token without the `read` scope decides only in shared conversations and its own private ones (another token's: 404).
         */
        post: operations["decideApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The org's tool calls and action runs that wait for approval (or were decided), newest first
         * @description Two kinds in one list, told apart by `kind`. `tool_call`: a call of an agent that paused its turn (decided with `POST /api/v1/agents/{agentId}/approvals/{approvalId}` `{decision, reason?}`, which takes the `messages` scope; that route has no org in its path, so the admin password decides there for org `default` only). One undecided past `expiresAt` is `expired` at once, before the reaper records it. `action_run`: a connector action run asked for through the API that `requiresApproval` (decided with `POST /api/{org}/runs/{runId}/approve` or `/reject`, `write` scope); a run an agent started is listed as its tool call only. Each item's `decide` names the route to post to, relative to the API base: a server mounted under `SVC_BASE_PATH` takes that prefix before it. `agentId` lists only that agent's tool calls (action runs belong to no agent).
         */
        get: operations["listApprovals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{stableId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * WhatsApp Cloud API's subscription check: the challenge, when the verify token is the platform's
         * @description WhatsApp Cloud API calls this when a webhook is subscribed: the server echoes `hub.challenge` when `hub.verify_token` is the platform's `verify_token`.
         */
        get: operations["verifyWebhook"];
        put?: never;
        /**
         * A chat platform's webhook call (Slack Events API, Telegram Bot API, WhatsApp Cloud API)
         * @description Signed the platform's way: `X-Slack-Signature` (team_chat), `X-Telegram-Bot-Api-Secret-Token` (messenger), `X-Hub-Signature-256` (messenger, flavor "whatsapp"). Answered at once; the reply is sent through the platform's API.
         */
        post: operations["receiveWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/connectors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The connectors installed in the org
         * @description The connectors installed in the org, each with its key, version, definition (feeds, actions, credentials) and entity link overrides.
         */
        get: operations["listConnectors"];
        put?: never;
        /**
         * Install a connector in the org, or upgrade it, by its definition's key
         * @description The code runs in a sandbox (a child process with time and memory limits and no server environment) to read its definition, which is checked with validateDefinition: every problem is listed. Connections and feeds of an upgraded connector stay. A `definition` without code (mcpConfig or openapiConfig) gets its actions from its upstream, read in the same sandbox under the same egress rules (SVC_EGRESS_ALLOW for private addresses).
         */
        post: operations["installConnector"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/connectors/{key}/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Read a connector without code's actions from its upstream again
         * @description Lists the MCP server's tools, or fetches the OpenAPI description, again, with a connection's credentials (the one named, else the first active one that has some): new actions become tools, and one the upstream no longer offers stops being one. The org's `requiresApproval` overrides stay.
         */
        post: operations["refreshConnector"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/connector-packages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The bundled connectors this server can install, and whether the org has each
         * @description Each is installed with `POST /api/{org}/connectors` `{package}` (admin scope). `installed` compares by the definition's key: a connector of that key posted as source counts, and installing the package replaces it. Posted source, where the server allows it, is not listed here.
         */
        get: operations["listConnectorPackages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/connectors/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One installed connector, with its definition
         * @description The installed connector with its definition: feeds, actions, credentials it takes, and entity types it links.
         */
        get: operations["getConnector"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/connections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The org's connections
         * @description The org's connections with their status and their connector.
         */
        get: operations["listConnections"];
        put?: never;
        /**
         * Connect an installed connector; its feeds are created with it
         * @description `credentials` holds the values of the connector's env_keys fields: encrypted at rest, merged into the connector's config under their keys when it runs, never returned. For an `oauth` connector it holds a token obtained outside svc (`accessToken`, optionally `refreshToken`, `expiresAt`, `scope`), handed to the connector as `ctx.credentials`; a sync that rotates it (`auth_update`) replaces it. A feed whose config schema needs values is created paused, saying which; PATCH its config to start it.
         */
        post: operations["createConnection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/connections/{connectionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One connection
         * @description The connection, its status and its connector. Its credentials are never answered.
         */
        get: operations["getConnection"];
        put?: never;
        post?: never;
        /**
         * Delete a connection that holds no events, with its feeds (admin)
         * @description Its feeds (schedule, config, checkpoint), finished runs and OAuth attempts are deleted with it. A connection whose syncs collected events is refused (409): deleting it would delete its events. Revoke it instead (`POST /api/{org}/connections/{connectionId}/revoke`): it stops and forgets its credentials, and its events stay. A connection with a pending or running run is refused too (409): cancel the run, or wait for it.
         */
        delete: operations["deleteConnection"];
        options?: never;
        head?: never;
        /**
         * Pause or resume a connection, rename it, or give it new credentials
         * @description `paused`: none of its feeds syncs and none of its actions runs until it is `active` again. `credentials` replaces all of its credentials (checked as on create); a connection in `error` or `revoked` is made `active` again only by new credentials.
         */
        patch: operations["updateConnection"];
        trace?: never;
    };
    "/api/{org}/connections/{connectionId}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Forget a connection's credentials; it is `revoked` until connected again
         * @description The connection forgets its credentials (tokens, env_keys values, a browser session) and becomes `revoked`: none of its feeds syncs and none of its actions runs. An org-wide grant (an auth method with `scope: organization`) is forgotten for every connection of the connector. Connecting again (OAuth, a browser session, the interactive flow, or new credentials through PATCH) makes it `active` again.
         */
        post: operations["revokeConnection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/connections/{connectionId}/feeds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A connection's feeds
         * @description The connection's feeds with their config, schedule, last sync and failures.
         */
        get: operations["listFeeds"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/feeds/{feedId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a feed's config, schedule or status
         * @description `config` replaces the feed's config and is checked against the feed's configSchema; a feed paused for want of config starts once it is valid. `status`: `paused` stops its syncs, `active` resumes them (and clears an `error` after its failures).
         */
        patch: operations["updateFeed"];
        trace?: never;
    };
    "/api/{org}/connections/{connectionId}/oauth/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start connecting an OAuth connection: the provider URL to send the person to
         * @description Answers the provider's authorization URL. The person opens it and consents; the provider sends them back to the public `{base}/api/v1/oauth/callback`, which exchanges the code, makes the connection `active` and shows a page saying so. `state` is a random single-use nonce bound to this org, this connection and the PKCE verifier, valid 10 minutes. Scopes asked: the method's `requiredScopes`, every feed's `requiredScopes`, and `scopes` (any of the `optionalScopes`). Follow the outcome with `GET .../oauth/attempts/{attemptId}`. The OAuth client id and secret are the org secrets named by `clientIdKey`/`clientSecretKey` (default `<PROVIDER>_CLIENT_ID`/`<PROVIDER>_CLIENT_SECRET`): a missing one is 422 `oauth_client_missing`, before anyone is sent anywhere.
         */
        post: operations["startOAuth"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/connections/{connectionId}/oauth/attempts/{attemptId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How an OAuth connection attempt went
         * @description Whether the OAuth attempt is `pending`, `connected`, `denied`, `failed` or `expired`, and what to do next: what a client polls after it opened the authorization URL.
         */
        get: operations["getOAuthAttempt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where the OAuth provider sends the person back (an HTML page saying what happened)
         * @description Public: the provider redirects the person's browser here with `code` and `state` (or `error`). The `state` must be one this server issued, unused and under 10 minutes old; it is used up by this call whatever happens. Query: `state`, and `code` or `error` (with `error_description`), as RFC 6749 section 4.1.2 says; whatever arrives, the answer is a page for the person.
         */
        get: operations["oauthCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/connections/{connectionId}/browser-session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What a `browser` connection's captured session holds: when, and how many cookies of each domain
         * @description `session` is null until one is captured. Never the cookies themselves: their names and values stay sealed.
         */
        get: operations["getBrowserSession"];
        put?: never;
        /**
         * Capture a `browser` connection's session: the cookies of its connector's requiredDomains
         * @description Either `{cdpUrl}`: the server reads the cookies of a Chromium started with remote debugging (`--remote-debugging-port`) over the Chrome DevTools Protocol; `cdpUrl` defaults to the method's `defaultCdpUrl`, else `http://127.0.0.1:9222`. It is an address this org writes, so every connection to it goes through the egress guard: a loopback or private address is refused (422 `egress_refused`) unless SVC_EGRESS_ALLOW lists it. Or `{cookies}`: cookies captured elsewhere (what `svc memory browser-auth` uploads). Only cookies of a required domain or one of its subdomains are kept (`.example.com` and `a.example.com` for `example.com`, never `evil-example.com`); none at all is a 422 naming the domains to log in to. The session is encrypted at rest, replaces the one before, and is handed to the connector as `ctx.sessionState = {cookies}`; a connection in `error` or `revoked` is `active` again. The answer says how many cookies of each domain were captured, never their names or values.
         */
        post: operations["captureBrowserSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/feeds/{feedId}/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sync a feed now
         * @description A pending sync run of the feed, or the one already open (pending or running): asking twice makes one run. `created` says which. The run starts once a worker takes it, if its connection is active (a paused one's waits until it is resumed); a connection in `error` or `revoked` is 409, saying how to connect it again.
         */
        post: operations["syncFeed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The org's runs, newest first, a page at a time
         * @description Sync, action, watcher and auth runs, newest first; filtered by feed, connection, status or type.
         */
        get: operations["listRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/runs/{runId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One run
         * @description The run with its status, what it collected, and its error when it failed.
         */
        get: operations["getRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/runs/{runId}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A run's log lines, oldest first, after a sequence number
         * @description To follow a run, ask again with `after` set to the `nextAfter` of the previous answer. Lines are numbered from 1; only the latest 1000 are kept, so a gap in `seq` is lines let go. Once `runStatus` has ended and `lines` is empty, no more will come.
         */
        get: operations["listRunLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/runs/{runId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stop a pending or running run
         * @description The run is `cancelled` at once and its worker stops it; a cancelled sync keeps what it committed before, and its feed syncs again at its usual interval.
         */
        post: operations["cancelRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/runs/{runId}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve an action run that waits for approval; a worker then runs it
         * @description The action run that waits for approval is queued, and a worker runs it. A run that is not waiting for approval answers 409.
         */
        post: operations["approveRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/runs/{runId}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject an action run that waits for approval; it never runs (status `cancelled`)
         * @description The action run that waits for approval is cancelled and never runs. A run that is not waiting for approval answers 409.
         */
        post: operations["rejectRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/connections/{connectionId}/auth-runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Authenticate a connection interactively: an `auth` run of its connector's authenticate(ctx)
         * @description For a connector whose auth methods include `interactive`. A worker runs the connector's `authenticate(ctx)` whatever the connection's status (new, `error`, `revoked`); what it shows the user (a QR code, a code, a link, a form) is read with `GET /auth-runs/{runId}` or followed with `GET /auth-runs/{runId}/events`, and what the user answers is posted to `POST /auth-runs/{runId}/signals/{name}`. On success its credentials are kept sealed on the connection (or the org, for a method scoped `organization`), which becomes `active`; its runs get them merged into `ctx.config` (or as `ctx.credentials` when they hold an `accessToken`). The run ends `timeout` after the method's `timeoutSec` (default 300) whatever the connector does, and `POST /runs/{runId}/cancel` stops it at once. One auth run is open per connection: while one is pending or running, this answers it (200, `created: false`) instead of starting another.
         */
        post: operations["startAuthRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/auth-runs/{runId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An auth run and the artifact it shows now
         * @description `artifact` is the latest the connector emitted (null before the first): `qr` (`value` to draw as a QR code), `code` (`value` to type elsewhere), `redirect` (`url` to open; the landing page posts the signal `awaitSignal`), `prompt` (`fields` to ask, posted together as the signal `submitSignal`), `status` (`message`). Never a credential. `artifactSeq` is its event id in the run's stream: a client that joins late follows from there (`GET /auth-runs/{runId}/events?after=` it minus 1) instead of replaying prompts already answered.
         */
        get: operations["getAuthRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/auth-runs/{runId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An auth run's artifacts and statuses as Server-Sent Events, from any replica
         * @description Each event's `id` is the run's own sequence number (from 1) and its `data` JSON: `event: artifact` `{seq, artifact}` (the artifact now shown, as in `GET /auth-runs/{runId}`), `event: status` `{seq, status, errorMessage}` (the run is `pending`, `running`, then `completed`, `failed`, `cancelled` or `timeout`). The stream ends after the final status. A reconnecting client sends `Last-Event-ID` (or `?after=`) and gets every later event once. A `: ping` comment comes every 15 s.
         */
        get: operations["streamAuthRunEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/auth-runs/{runId}/signals/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer what an auth run awaits (a form, a redirect landing page)
         * @description The body is the JSON object the connector's `awaitSignal(name)` resolves to: for a `prompt`, its fields by `key`. At most 16 KB. It may hold a password or a one-time code: it is kept encrypted until the connector takes it, then deleted, and never logged or returned. Posted before the connector awaits it, it waits; a second post of the same name replaces the first.
         */
        post: operations["signalAuthRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The org's events, newest first by occurred_at, a page at a time
         * @description `kind` matches the `origin_type`, or the `semantic_type` of an event without one. `since` is inclusive and `until` exclusive, both on `occurred_at`. `entityId`: events linked to that entity.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/events/{eventId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One event
         * @description The event with its content, the entities it links, and its embedding with `embedding=true`.
         */
        get: operations["getEvent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/connections/{connectionId}/actions/{actionKey}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run one action of a connection
         * @description `input` is checked against the action's inputSchema. The run is queued and answered at once (202): an action that `requiresApproval` waits in `approvalStatus: pending` until `POST /api/:org/runs/:id/approve` (or `/reject`, and it never runs); others run as soon as a worker is free. Follow it with `GET /api/:org/runs/:id`: `actionOutput` and `errorMessage` hold the connector's ActionResult.
         */
        post: operations["runAction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/entities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The org's entities, oldest first, a page at a time
         * @description `identity` (`namespace:value`, for example `email:Jane@Example.com`) is normalised as entity links normalise it, then matched exactly: at most one entity per type holds it.
         */
        get: operations["listEntities"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/entities/{entityId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One entity, with its identities, traits and newest relationships
         * @description `relationships`: its 50 newest, whether it is their source or their target; GET /api/{org}/relationships?entityId= pages through all of them.
         */
        get: operations["getEntity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/watchers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Watchers with their status, last window and next run
         * @description The org's watchers with their status, their last window and when they run next.
         */
        get: operations["listWatchers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/watchers/{slug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One watcher with its status, last window and next run
         * @description The watcher with its status, its last window and when it runs next.
         */
        get: operations["getWatcher"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Pause or resume a watcher
         * @description Paused, it makes no window. Resumed, its failures in a row are forgotten and a failed window is retried at once. Its definition is changed by `svc apply`, not here.
         */
        patch: operations["updateWatcher"];
        trace?: never;
    };
    "/api/{org}/watchers/{slug}/windows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A watcher's windows, newest first
         * @description The watcher's windows, newest first, a page at a time: each window is one run over the events of a period.
         */
        get: operations["listWatcherWindows"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/watchers/{slug}/windows/{windowId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One window's result: the reply, the structured result, the events it covered
         * @description The window with its reply, its structured result, and the events it covered.
         */
        get: operations["getWatcherWindow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/watchers/{slug}/run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run a window now
         * @description Starts the open window at once when one waits (its time or its retry), or makes a window from the arrival mark to now. 202 with a new window, 200 with the open one.
         */
        post: operations["runWatcher"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/relationships": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The org's relationships, newest first, a page at a time
         * @description The org's relationships between entities, newest first; filtered by an entity or a relationship type.
         */
        get: operations["listRelationships"];
        put?: never;
        /**
         * Relate two entities (idempotent)
         * @description One relationship per (type, source, target): posting it again answers 200 `unchanged`, or `updated` when its metadata differs. The entities must be allowed by the type's `rules`, and `metadata` valid against its `metadata_schema`.
         */
        post: operations["createRelationship"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/relationships/{relationshipId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a relationship
         * @description Removes the relationship; the entities it joined stay.
         */
        delete: operations["deleteRelationship"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{org}/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The org's events that match words, best first
         * @description `q` takes web search syntax: words (all must match), `"a phrase"`, `-word`, `or`; English stemming. A title match ranks above a body match. `mode` says how it matched: `text` (full text only; `modeNote` says why no vectors were used). `since` is inclusive and `until` exclusive, both on `occurred_at`; `kind` matches the `origin_type` or the `semantic_type`; `entityId`: events linked to that entity. A `q` with no words to search for is 422 `search_query_empty`.
         */
        get: operations["searchEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description A string, number, boolean or null, or a list or table of such values, nested to any depth */
        PlatformConfigValueInput: string | number | boolean | null | unknown[] | {
            [key: string]: unknown;
        };
        /** @description A string, number, boolean or null, or a list or table of such values, nested to any depth */
        PlatformConfigValue: string | number | boolean | null | unknown[] | {
            [key: string]: unknown;
        };
        Problem: {
            type: string;
            title: string;
            status: number;
            detail: string;
            /** @enum {string} */
            code: "validation_failed" | "malformed_json" | "malformed_multipart" | "malformed_request" | "unauthorized" | "forbidden" | "not_found" | "route_not_found" | "conflict" | "stable_id_mismatch" | "stable_id_taken" | "platform_name_required" | "unknown_agent" | "setting_refused" | "egress_refused" | "token_name_taken" | "idempotency_key_reused" | "secret_reserved" | "sandbox_unavailable" | "payload_too_large" | "uri_too_long" | "request_header_too_large" | "request_timeout" | "unsupported_media_type" | "rate_limited" | "database_unavailable" | "shutting_down" | "internal_error" | "webhook_signature_missing" | "webhook_signature_invalid" | "webhook_signature_stale" | "webhook_verify_token_invalid" | "no_provider" | "secret_missing" | "model_unavailable" | "turn_abandoned" | "guardrail_blocked" | "delivery_failed" | "oauth_client_missing" | "watcher_paused" | "invalid_schema" | "invalid_metadata" | "unknown_relationship_type" | "relationship_not_allowed" | "relationship_type_in_use" | "search_query_empty" | "csrf_failed";
            errors?: {
                /** @description JSON Pointer, e.g. /body/config/token */
                path: string;
                message: string;
            }[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    healthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    readyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ready";
                    };
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The Prometheus text exposition format */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listOrgs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        orgs: {
                            slug: string;
                            name: string;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    upsertOrg: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "slug": "acme",
                 *       "name": "Acme"
                 *     }
                 */
                "application/json": {
                    slug: string;
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "updated" | "unchanged";
                        org: {
                            slug: string;
                            name: string;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "created";
                        org: {
                            slug: string;
                            name: string;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    whoami: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        kind: "token" | "admin_password";
                        /** @description the token's org; null for the admin password, which acts on every org */
                        org: string | null;
                        scopes: ("read" | "write" | "messages" | "admin")[];
                        token: {
                            id: string;
                            name: string;
                        } | null;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listTokens: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tokens: {
                            id: string;
                            name: string;
                            scopes: ("read" | "write" | "messages" | "admin")[];
                            /** Format: date-time */
                            createdAt: string;
                            expiresAt: string | null;
                            lastUsedAt: string | null;
                            revokedAt: string | null;
                        }[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "deploy from CI",
                 *       "scopes": [
                 *         "read",
                 *         "write"
                 *       ],
                 *       "expiresInDays": 90
                 *     }
                 */
                "application/json": {
                    name: string;
                    scopes: ("read" | "write" | "messages" | "admin")[];
                    expiresInDays?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "created";
                        token: {
                            id: string;
                            name: string;
                            scopes: ("read" | "write" | "messages" | "admin")[];
                            /** Format: date-time */
                            createdAt: string;
                            expiresAt: string | null;
                            lastUsedAt: string | null;
                            revokedAt: string | null;
                        };
                        /** @description the bearer value; shown once, stored only as a hash */
                        secret: string;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description An active token has this name */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    revokeToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                tokenId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "updated" | "unchanged";
                        token: {
                            id: string;
                            name: string;
                            scopes: ("read" | "write" | "messages" | "admin")[];
                            /** Format: date-time */
                            createdAt: string;
                            expiresAt: string | null;
                            lastUsedAt: string | null;
                            revokedAt: string | null;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session: {
                            id: string;
                            /** @enum {string} */
                            kind: "token" | "admin_password";
                            /** @description the org this session acts in; an admin session may move to another */
                            org: string;
                            scopes: ("read" | "write" | "messages" | "admin")[];
                            token: {
                                id: string;
                                name: string;
                            } | null;
                            expiresAt: string;
                            /** @description send it as `X-CSRF-Token` on every request of this session that is not a GET, HEAD or OPTIONS */
                            csrfToken: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    signIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "credential": "svc_YOUR_TOKEN"
                 *     }
                 */
                "application/json": {
                    /** @description the admin password or an API token (svc_...) */
                    credential: string;
                    /** @description the org to act in (an admin's session); a token's is its own */
                    org?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session: {
                            id: string;
                            /** @enum {string} */
                            kind: "token" | "admin_password";
                            /** @description the org this session acts in; an admin session may move to another */
                            org: string;
                            scopes: ("read" | "write" | "messages" | "admin")[];
                            token: {
                                id: string;
                                name: string;
                            } | null;
                            expiresAt: string;
                            /** @description send it as `X-CSRF-Token` on every request of this session that is not a GET, HEAD or OPTIONS */
                            csrfToken: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    signOut: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description no fields; the body may be left out */
        requestBody?: {
            content: {
                "application/json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "deleted";
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    moveSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "org": "default"
                 *     }
                 */
                "application/json": {
                    org: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session: {
                            id: string;
                            /** @enum {string} */
                            kind: "token" | "admin_password";
                            /** @description the org this session acts in; an admin session may move to another */
                            org: string;
                            scopes: ("read" | "write" | "messages" | "admin")[];
                            token: {
                                id: string;
                                name: string;
                            } | null;
                            expiresAt: string;
                            /** @description send it as `X-CSRF-Token` on every request of this session that is not a GET, HEAD or OPTIONS */
                            csrfToken: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A token's session stays in its token's org */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listAgents: {
        parameters: {
            query?: {
                /** @description what to add to each agent: `include=config&include=platforms`, or `include=config,platforms` */
                include?: ("config" | "platforms")[];
            };
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agents: {
                            agentId: string;
                            name: string;
                            description: string;
                            providers: {
                                key: string;
                                secret_ref: string;
                                /** @enum {string} */
                                status: "ok" | "error";
                                problems: {
                                    /** @enum {string} */
                                    code: "secret_missing";
                                    variable: string;
                                    path: string;
                                    message: string;
                                }[];
                            }[];
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                            config?: {
                                networkConfig: {
                                    allowedDomains?: string[];
                                    deniedDomains?: string[];
                                } | null;
                                egressConfig: {
                                    /** @enum {string} */
                                    mode: "direct" | "proxy" | "none";
                                    /** Format: uri */
                                    proxyUrl?: string;
                                    allowedPorts?: number[];
                                } | null;
                                nixConfig: {
                                    packages: string[];
                                    channel?: string;
                                } | null;
                                mcpServers: {
                                    [key: string]: {
                                        /** Format: uri */
                                        url?: string;
                                        command?: string;
                                        args?: string[];
                                        headers?: {
                                            [key: string]: string;
                                        };
                                        env?: {
                                            [key: string]: string;
                                        };
                                        oauth?: {
                                            client_id: string;
                                            client_secret?: string;
                                            scopes?: string[];
                                            /** Format: uri */
                                            issuer?: string;
                                        };
                                    };
                                } | null;
                                skillsConfig: {
                                    skills: {
                                        name: string;
                                        source?: string;
                                        enabled?: boolean;
                                    }[];
                                } | null;
                                toolsConfig: {
                                    allowed?: string[];
                                    denied?: string[];
                                    maxCallsPerTurn?: number;
                                    memory?: boolean;
                                    memorySave?: boolean;
                                } | null;
                                guardrails: {
                                    maxInputChars?: number;
                                    maxOutputChars?: number;
                                    blockedTerms?: string[];
                                    redactPii?: boolean;
                                } | null;
                                preApprovedTools: string[] | null;
                                providerModelPreferences: {
                                    [key: string]: {
                                        model: string;
                                        fallbackModels?: string[];
                                        temperature?: number;
                                        maxOutputTokens?: number;
                                    };
                                } | null;
                                modelSelection: ({
                                    /** @enum {string} */
                                    mode: "auto";
                                    providers?: string[];
                                } | {
                                    /** @enum {string} */
                                    mode: "pinned";
                                    model: string;
                                }) | null;
                                "IDENTITY.md": string | null;
                                "SOUL.md": string | null;
                                "USER.md": string | null;
                            };
                            platforms?: {
                                stableId: string;
                                agentId: string;
                                /** @enum {string} */
                                type: "team_chat" | "messenger";
                                name: string | null;
                                config: {
                                    [key: string]: components["schemas"]["PlatformConfigValue"];
                                };
                                webhookUrl: string;
                                /** @enum {string} */
                                status: "ok" | "error";
                                problems: {
                                    /** @enum {string} */
                                    code: "secret_missing";
                                    variable: string;
                                    path: string;
                                    message: string;
                                }[];
                                /** Format: date-time */
                                createdAt: string;
                                /** Format: date-time */
                                updatedAt: string;
                            }[];
                        }[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    upsertAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "agentId": "support",
                 *       "name": "Support",
                 *       "description": "Answers customer questions"
                 *     }
                 */
                "application/json": {
                    agentId: string;
                    name: string;
                    description?: string;
                    providers?: {
                        key: string;
                        secret_ref: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "updated" | "unchanged";
                        agent: {
                            agentId: string;
                            name: string;
                            description: string;
                            providers: {
                                key: string;
                                secret_ref: string;
                                /** @enum {string} */
                                status: "ok" | "error";
                                problems: {
                                    /** @enum {string} */
                                    code: "secret_missing";
                                    variable: string;
                                    path: string;
                                    message: string;
                                }[];
                            }[];
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                            config?: {
                                networkConfig: {
                                    allowedDomains?: string[];
                                    deniedDomains?: string[];
                                } | null;
                                egressConfig: {
                                    /** @enum {string} */
                                    mode: "direct" | "proxy" | "none";
                                    /** Format: uri */
                                    proxyUrl?: string;
                                    allowedPorts?: number[];
                                } | null;
                                nixConfig: {
                                    packages: string[];
                                    channel?: string;
                                } | null;
                                mcpServers: {
                                    [key: string]: {
                                        /** Format: uri */
                                        url?: string;
                                        command?: string;
                                        args?: string[];
                                        headers?: {
                                            [key: string]: string;
                                        };
                                        env?: {
                                            [key: string]: string;
                                        };
                                        oauth?: {
                                            client_id: string;
                                            client_secret?: string;
                                            scopes?: string[];
                                            /** Format: uri */
                                            issuer?: string;
                                        };
                                    };
                                } | null;
                                skillsConfig: {
                                    skills: {
                                        name: string;
                                        source?: string;
                                        enabled?: boolean;
                                    }[];
                                } | null;
                                toolsConfig: {
                                    allowed?: string[];
                                    denied?: string[];
                                    maxCallsPerTurn?: number;
                                    memory?: boolean;
                                    memorySave?: boolean;
                                } | null;
                                guardrails: {
                                    maxInputChars?: number;
                                    maxOutputChars?: number;
                                    blockedTerms?: string[];
                                    redactPii?: boolean;
                                } | null;
                                preApprovedTools: string[] | null;
                                providerModelPreferences: {
                                    [key: string]: {
                                        model: string;
                                        fallbackModels?: string[];
                                        temperature?: number;
                                        maxOutputTokens?: number;
                                    };
                                } | null;
                                modelSelection: ({
                                    /** @enum {string} */
                                    mode: "auto";
                                    providers?: string[];
                                } | {
                                    /** @enum {string} */
                                    mode: "pinned";
                                    model: string;
                                }) | null;
                                "IDENTITY.md": string | null;
                                "SOUL.md": string | null;
                                "USER.md": string | null;
                            };
                            platforms?: {
                                stableId: string;
                                agentId: string;
                                /** @enum {string} */
                                type: "team_chat" | "messenger";
                                name: string | null;
                                config: {
                                    [key: string]: components["schemas"]["PlatformConfigValue"];
                                };
                                webhookUrl: string;
                                /** @enum {string} */
                                status: "ok" | "error";
                                problems: {
                                    /** @enum {string} */
                                    code: "secret_missing";
                                    variable: string;
                                    path: string;
                                    message: string;
                                }[];
                                /** Format: date-time */
                                createdAt: string;
                                /** Format: date-time */
                                updatedAt: string;
                            }[];
                        };
                    };
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "created";
                        agent: {
                            agentId: string;
                            name: string;
                            description: string;
                            providers: {
                                key: string;
                                secret_ref: string;
                                /** @enum {string} */
                                status: "ok" | "error";
                                problems: {
                                    /** @enum {string} */
                                    code: "secret_missing";
                                    variable: string;
                                    path: string;
                                    message: string;
                                }[];
                            }[];
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                            config?: {
                                networkConfig: {
                                    allowedDomains?: string[];
                                    deniedDomains?: string[];
                                } | null;
                                egressConfig: {
                                    /** @enum {string} */
                                    mode: "direct" | "proxy" | "none";
                                    /** Format: uri */
                                    proxyUrl?: string;
                                    allowedPorts?: number[];
                                } | null;
                                nixConfig: {
                                    packages: string[];
                                    channel?: string;
                                } | null;
                                mcpServers: {
                                    [key: string]: {
                                        /** Format: uri */
                                        url?: string;
                                        command?: string;
                                        args?: string[];
                                        headers?: {
                                            [key: string]: string;
                                        };
                                        env?: {
                                            [key: string]: string;
                                        };
                                        oauth?: {
                                            client_id: string;
                                            client_secret?: string;
                                            scopes?: string[];
                                            /** Format: uri */
                                            issuer?: string;
                                        };
                                    };
                                } | null;
                                skillsConfig: {
                                    skills: {
                                        name: string;
                                        source?: string;
                                        enabled?: boolean;
                                    }[];
                                } | null;
                                toolsConfig: {
                                    allowed?: string[];
                                    denied?: string[];
                                    maxCallsPerTurn?: number;
                                    memory?: boolean;
                                    memorySave?: boolean;
                                } | null;
                                guardrails: {
                                    maxInputChars?: number;
                                    maxOutputChars?: number;
                                    blockedTerms?: string[];
                                    redactPii?: boolean;
                                } | null;
                                preApprovedTools: string[] | null;
                                providerModelPreferences: {
                                    [key: string]: {
                                        model: string;
                                        fallbackModels?: string[];
                                        temperature?: number;
                                        maxOutputTokens?: number;
                                    };
                                } | null;
                                modelSelection: ({
                                    /** @enum {string} */
                                    mode: "auto";
                                    providers?: string[];
                                } | {
                                    /** @enum {string} */
                                    mode: "pinned";
                                    model: string;
                                }) | null;
                                "IDENTITY.md": string | null;
                                "SOUL.md": string | null;
                                "USER.md": string | null;
                            };
                            platforms?: {
                                stableId: string;
                                agentId: string;
                                /** @enum {string} */
                                type: "team_chat" | "messenger";
                                name: string | null;
                                config: {
                                    [key: string]: components["schemas"]["PlatformConfigValue"];
                                };
                                webhookUrl: string;
                                /** @enum {string} */
                                status: "ok" | "error";
                                problems: {
                                    /** @enum {string} */
                                    code: "secret_missing";
                                    variable: string;
                                    path: string;
                                    message: string;
                                }[];
                                /** Format: date-time */
                                createdAt: string;
                                /** Format: date-time */
                                updatedAt: string;
                            }[];
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A provider references a variable reserved for the server */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAgent: {
        parameters: {
            query?: {
                /** @description what to add to each agent: `include=config&include=platforms`, or `include=config,platforms` */
                include?: ("config" | "platforms")[];
            };
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                /** @description agentId */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agent: {
                            agentId: string;
                            name: string;
                            description: string;
                            providers: {
                                key: string;
                                secret_ref: string;
                                /** @enum {string} */
                                status: "ok" | "error";
                                problems: {
                                    /** @enum {string} */
                                    code: "secret_missing";
                                    variable: string;
                                    path: string;
                                    message: string;
                                }[];
                            }[];
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                            config?: {
                                networkConfig: {
                                    allowedDomains?: string[];
                                    deniedDomains?: string[];
                                } | null;
                                egressConfig: {
                                    /** @enum {string} */
                                    mode: "direct" | "proxy" | "none";
                                    /** Format: uri */
                                    proxyUrl?: string;
                                    allowedPorts?: number[];
                                } | null;
                                nixConfig: {
                                    packages: string[];
                                    channel?: string;
                                } | null;
                                mcpServers: {
                                    [key: string]: {
                                        /** Format: uri */
                                        url?: string;
                                        command?: string;
                                        args?: string[];
                                        headers?: {
                                            [key: string]: string;
                                        };
                                        env?: {
                                            [key: string]: string;
                                        };
                                        oauth?: {
                                            client_id: string;
                                            client_secret?: string;
                                            scopes?: string[];
                                            /** Format: uri */
                                            issuer?: string;
                                        };
                                    };
                                } | null;
                                skillsConfig: {
                                    skills: {
                                        name: string;
                                        source?: string;
                                        enabled?: boolean;
                                    }[];
                                } | null;
                                toolsConfig: {
                                    allowed?: string[];
                                    denied?: string[];
                                    maxCallsPerTurn?: number;
                                    memory?: boolean;
                                    memorySave?: boolean;
                                } | null;
                                guardrails: {
                                    maxInputChars?: number;
                                    maxOutputChars?: number;
                                    blockedTerms?: string[];
                                    redactPii?: boolean;
                                } | null;
                                preApprovedTools: string[] | null;
                                providerModelPreferences: {
                                    [key: string]: {
                                        model: string;
                                        fallbackModels?: string[];
                                        temperature?: number;
                                        maxOutputTokens?: number;
                                    };
                                } | null;
                                modelSelection: ({
                                    /** @enum {string} */
                                    mode: "auto";
                                    providers?: string[];
                                } | {
                                    /** @enum {string} */
                                    mode: "pinned";
                                    model: string;
                                }) | null;
                                "IDENTITY.md": string | null;
                                "SOUL.md": string | null;
                                "USER.md": string | null;
                            };
                            platforms?: {
                                stableId: string;
                                agentId: string;
                                /** @enum {string} */
                                type: "team_chat" | "messenger";
                                name: string | null;
                                config: {
                                    [key: string]: components["schemas"]["PlatformConfigValue"];
                                };
                                webhookUrl: string;
                                /** @enum {string} */
                                status: "ok" | "error";
                                problems: {
                                    /** @enum {string} */
                                    code: "secret_missing";
                                    variable: string;
                                    path: string;
                                    message: string;
                                }[];
                                /** Format: date-time */
                                createdAt: string;
                                /** Format: date-time */
                                updatedAt: string;
                            }[];
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                /** @description agentId */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "deleted";
                        agentId: string;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A watcher still names this agent */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAgentSettings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                /** @description agentId */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agentId: string;
                        config: {
                            networkConfig: {
                                allowedDomains?: string[];
                                deniedDomains?: string[];
                            } | null;
                            egressConfig: {
                                /** @enum {string} */
                                mode: "direct" | "proxy" | "none";
                                /** Format: uri */
                                proxyUrl?: string;
                                allowedPorts?: number[];
                            } | null;
                            nixConfig: {
                                packages: string[];
                                channel?: string;
                            } | null;
                            mcpServers: {
                                [key: string]: {
                                    /** Format: uri */
                                    url?: string;
                                    command?: string;
                                    args?: string[];
                                    headers?: {
                                        [key: string]: string;
                                    };
                                    env?: {
                                        [key: string]: string;
                                    };
                                    oauth?: {
                                        client_id: string;
                                        client_secret?: string;
                                        scopes?: string[];
                                        /** Format: uri */
                                        issuer?: string;
                                    };
                                };
                            } | null;
                            skillsConfig: {
                                skills: {
                                    name: string;
                                    source?: string;
                                    enabled?: boolean;
                                }[];
                            } | null;
                            toolsConfig: {
                                allowed?: string[];
                                denied?: string[];
                                maxCallsPerTurn?: number;
                                memory?: boolean;
                                memorySave?: boolean;
                            } | null;
                            guardrails: {
                                maxInputChars?: number;
                                maxOutputChars?: number;
                                blockedTerms?: string[];
                                redactPii?: boolean;
                            } | null;
                            preApprovedTools: string[] | null;
                            providerModelPreferences: {
                                [key: string]: {
                                    model: string;
                                    fallbackModels?: string[];
                                    temperature?: number;
                                    maxOutputTokens?: number;
                                };
                            } | null;
                            modelSelection: ({
                                /** @enum {string} */
                                mode: "auto";
                                providers?: string[];
                            } | {
                                /** @enum {string} */
                                mode: "pinned";
                                model: string;
                            }) | null;
                            "IDENTITY.md": string | null;
                            "SOUL.md": string | null;
                            "USER.md": string | null;
                        };
                        updatedAt: string;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patchAgentSettings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                /** @description agentId */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "IDENTITY.md": "# Support\nYou answer customer questions.",
                 *       "guardrails": null
                 *     }
                 */
                "application/json": {
                    networkConfig?: {
                        allowedDomains?: string[];
                        deniedDomains?: string[];
                    } | null;
                    egressConfig?: {
                        /** @enum {string} */
                        mode: "direct" | "proxy" | "none";
                        proxyUrl?: string;
                        allowedPorts?: number[];
                    } | null;
                    nixConfig?: {
                        packages: string[];
                        channel?: string;
                    } | null;
                    mcpServers?: {
                        [key: string]: {
                            url?: string;
                            command?: string;
                            args?: string[];
                            headers?: {
                                [key: string]: string;
                            };
                            env?: {
                                [key: string]: string;
                            };
                            oauth?: {
                                client_id: string;
                                client_secret?: string;
                                scopes?: string[];
                                issuer?: string;
                            };
                        };
                    } | null;
                    skillsConfig?: {
                        skills: {
                            name: string;
                            source?: string;
                            enabled?: boolean;
                        }[];
                    } | null;
                    toolsConfig?: {
                        allowed?: string[];
                        denied?: string[];
                        maxCallsPerTurn?: number;
                        memory?: boolean;
                        memorySave?: boolean;
                    } | null;
                    guardrails?: {
                        maxInputChars?: number;
                        maxOutputChars?: number;
                        blockedTerms?: string[];
                        redactPii?: boolean;
                    } | null;
                    preApprovedTools?: string[] | null;
                    providerModelPreferences?: {
                        [key: string]: {
                            model: string;
                            fallbackModels?: string[];
                            temperature?: number;
                            maxOutputTokens?: number;
                        };
                    } | null;
                    modelSelection?: ({
                        /** @enum {string} */
                        mode: "auto";
                        providers?: string[];
                    } | {
                        /** @enum {string} */
                        mode: "pinned";
                        model: string;
                    }) | null;
                    "IDENTITY.md"?: string | null;
                    "SOUL.md"?: string | null;
                    "USER.md"?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agentId: string;
                        config: {
                            networkConfig: {
                                allowedDomains?: string[];
                                deniedDomains?: string[];
                            } | null;
                            egressConfig: {
                                /** @enum {string} */
                                mode: "direct" | "proxy" | "none";
                                /** Format: uri */
                                proxyUrl?: string;
                                allowedPorts?: number[];
                            } | null;
                            nixConfig: {
                                packages: string[];
                                channel?: string;
                            } | null;
                            mcpServers: {
                                [key: string]: {
                                    /** Format: uri */
                                    url?: string;
                                    command?: string;
                                    args?: string[];
                                    headers?: {
                                        [key: string]: string;
                                    };
                                    env?: {
                                        [key: string]: string;
                                    };
                                    oauth?: {
                                        client_id: string;
                                        client_secret?: string;
                                        scopes?: string[];
                                        /** Format: uri */
                                        issuer?: string;
                                    };
                                };
                            } | null;
                            skillsConfig: {
                                skills: {
                                    name: string;
                                    source?: string;
                                    enabled?: boolean;
                                }[];
                            } | null;
                            toolsConfig: {
                                allowed?: string[];
                                denied?: string[];
                                maxCallsPerTurn?: number;
                                memory?: boolean;
                                memorySave?: boolean;
                            } | null;
                            guardrails: {
                                maxInputChars?: number;
                                maxOutputChars?: number;
                                blockedTerms?: string[];
                                redactPii?: boolean;
                            } | null;
                            preApprovedTools: string[] | null;
                            providerModelPreferences: {
                                [key: string]: {
                                    model: string;
                                    fallbackModels?: string[];
                                    temperature?: number;
                                    maxOutputTokens?: number;
                                };
                            } | null;
                            modelSelection: ({
                                /** @enum {string} */
                                mode: "auto";
                                providers?: string[];
                            } | {
                                /** @enum {string} */
                                mode: "pinned";
                                model: string;
                            }) | null;
                            "IDENTITY.md": string | null;
                            "SOUL.md": string | null;
                            "USER.md": string | null;
                        };
                        updatedAt: string;
                        /** @enum {string} */
                        result: "updated" | "unchanged";
                        /** @description settings this call changed */
                        changed: ("networkConfig" | "egressConfig" | "nixConfig" | "mcpServers" | "skillsConfig" | "toolsConfig" | "guardrails" | "preApprovedTools" | "providerModelPreferences" | "modelSelection" | "IDENTITY.md" | "SOUL.md" | "USER.md")[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A reference names a variable reserved for the server, or a target the deployment does not allow */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    checkAgentSettings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                /** @description agentId */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "mcpServers": {
                 *         "docs": {
                 *           "url": "https://mcp.example.com/mcp"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    networkConfig?: {
                        allowedDomains?: string[];
                        deniedDomains?: string[];
                    } | null;
                    egressConfig?: {
                        /** @enum {string} */
                        mode: "direct" | "proxy" | "none";
                        proxyUrl?: string;
                        allowedPorts?: number[];
                    } | null;
                    nixConfig?: {
                        packages: string[];
                        channel?: string;
                    } | null;
                    mcpServers?: {
                        [key: string]: {
                            url?: string;
                            command?: string;
                            args?: string[];
                            headers?: {
                                [key: string]: string;
                            };
                            env?: {
                                [key: string]: string;
                            };
                            oauth?: {
                                client_id: string;
                                client_secret?: string;
                                scopes?: string[];
                                issuer?: string;
                            };
                        };
                    } | null;
                    skillsConfig?: {
                        skills: {
                            name: string;
                            source?: string;
                            enabled?: boolean;
                        }[];
                    } | null;
                    toolsConfig?: {
                        allowed?: string[];
                        denied?: string[];
                        maxCallsPerTurn?: number;
                        memory?: boolean;
                        memorySave?: boolean;
                    } | null;
                    guardrails?: {
                        maxInputChars?: number;
                        maxOutputChars?: number;
                        blockedTerms?: string[];
                        redactPii?: boolean;
                    } | null;
                    preApprovedTools?: string[] | null;
                    providerModelPreferences?: {
                        [key: string]: {
                            model: string;
                            fallbackModels?: string[];
                            temperature?: number;
                            maxOutputTokens?: number;
                        };
                    } | null;
                    modelSelection?: ({
                        /** @enum {string} */
                        mode: "auto";
                        providers?: string[];
                    } | {
                        /** @enum {string} */
                        mode: "pinned";
                        model: string;
                    }) | null;
                    "IDENTITY.md"?: string | null;
                    "SOUL.md"?: string | null;
                    "USER.md"?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agentId: string;
                        /**
                         * @description the PATCH would not refuse these settings
                         * @enum {string}
                         */
                        result: "accepted";
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A reference names a variable reserved for the server, or a target the deployment does not allow */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listPlatforms: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                /** @description agentId */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        platforms: {
                            stableId: string;
                            agentId: string;
                            /** @enum {string} */
                            type: "team_chat" | "messenger";
                            name: string | null;
                            config: {
                                [key: string]: components["schemas"]["PlatformConfigValue"];
                            };
                            webhookUrl: string;
                            /** @enum {string} */
                            status: "ok" | "error";
                            problems: {
                                /** @enum {string} */
                                code: "secret_missing";
                                variable: string;
                                path: string;
                                message: string;
                            }[];
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    upsertPlatform: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                /** @description agentId */
                id: string;
                stableId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "team_chat",
                 *       "name": "Main",
                 *       "config": {
                 *         "signing_secret": "$SLACK_SIGNING_SECRET",
                 *         "bot_token": "$SLACK_BOT_TOKEN"
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    type: "team_chat" | "messenger";
                    name?: string;
                    /**
                     * @description What the platform reads. team_chat (Slack Events API): signing_secret, bot_token. messenger (Telegram Bot API): bot_token, secret_token. messenger with flavor = "whatsapp" (WhatsApp Cloud API): access_token, app_secret, verify_token, phone_number_id. Each of these but phone_number_id must be a secret reference ($NAME or ${NAME}). One of these keys in another case style (botToken) is refused, naming the key meant; other keys are kept as written.
                     * @default {}
                     */
                    config?: {
                        [key: string]: components["schemas"]["PlatformConfigValueInput"];
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "updated" | "unchanged";
                        platform: {
                            stableId: string;
                            agentId: string;
                            /** @enum {string} */
                            type: "team_chat" | "messenger";
                            name: string | null;
                            config: {
                                [key: string]: components["schemas"]["PlatformConfigValue"];
                            };
                            webhookUrl: string;
                            /** @enum {string} */
                            status: "ok" | "error";
                            problems: {
                                /** @enum {string} */
                                code: "secret_missing";
                                variable: string;
                                path: string;
                                message: string;
                            }[];
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        };
                        restartsWorker: boolean;
                    };
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "created";
                        platform: {
                            stableId: string;
                            agentId: string;
                            /** @enum {string} */
                            type: "team_chat" | "messenger";
                            name: string | null;
                            config: {
                                [key: string]: components["schemas"]["PlatformConfigValue"];
                            };
                            webhookUrl: string;
                            /** @enum {string} */
                            status: "ok" | "error";
                            problems: {
                                /** @enum {string} */
                                code: "secret_missing";
                                variable: string;
                                path: string;
                                message: string;
                            }[];
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        };
                        restartsWorker: boolean;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The stable ID belongs to another agent or org, or names are missing */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The stable ID does not match the body, or a reference names a reserved variable */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deletePlatform: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                /** @description agentId */
                id: string;
                stableId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "deleted";
                        stableId: string;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    putSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                /** @description the name references use, e.g. OPENAI_API_KEY */
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "value": "the secret value"
                 *     }
                 */
                "application/json": {
                    value: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "updated" | "unchanged";
                        secret: {
                            name: string;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "created";
                        secret: {
                            name: string;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The name is reserved for the server */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                /** @description the name references use, e.g. OPENAI_API_KEY */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "deleted";
                        name: string;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listSecrets: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        secrets: {
                            name: string;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    manageEntitySchema: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "action": "upsert",
                 *       "kind": "entity_type",
                 *       "item": {
                 *         "slug": "customer",
                 *         "name": "Customer"
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    action: "list";
                    /** @enum {string} */
                    kind?: "entity_type" | "relationship_type" | "watcher";
                } | ({
                    /** @enum {string} */
                    action: "upsert";
                    /** @enum {string} */
                    kind: "entity_type";
                    item: {
                        slug: string;
                        name: string;
                        description?: string;
                        icon?: string;
                        color?: string;
                        metadata_schema?: {
                            [key: string]: unknown;
                        };
                    };
                } | {
                    /** @enum {string} */
                    action: "upsert";
                    /** @enum {string} */
                    kind: "relationship_type";
                    item: {
                        slug: string;
                        name: string;
                        description?: string;
                        metadata_schema?: {
                            [key: string]: unknown;
                        };
                        rules?: {
                            source: string | string[];
                            target: string | string[];
                        }[];
                    };
                } | {
                    /** @enum {string} */
                    action: "upsert";
                    /** @enum {string} */
                    kind: "watcher";
                    item: {
                        slug: string;
                        name: string;
                        schedule: string;
                        prompt: string;
                        agent: string;
                        timezone?: string;
                        description?: string;
                        extraction_schema?: {
                            [key: string]: unknown;
                        };
                        tags?: string[];
                        sources?: {
                            name?: string;
                            connector?: string;
                            feed?: string;
                            entity_type?: string;
                        }[];
                        notification_channel?: ("canvas" | "notification" | "both") | {
                            platform: string;
                            channel: string;
                            thread?: string;
                        };
                        min_cooldown_seconds?: number;
                    };
                }) | {
                    /** @enum {string} */
                    action: "delete";
                    /** @enum {string} */
                    kind: "entity_type" | "relationship_type" | "watcher";
                    slug: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "created" | "updated" | "unchanged";
                        /** @enum {string} */
                        kind: "entity_type" | "relationship_type" | "watcher";
                        item: {
                            slug: string;
                            name: string;
                            description: string | null;
                            icon: string | null;
                            color: string | null;
                            metadata_schema: {
                                [key: string]: unknown;
                            } | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        } | {
                            slug: string;
                            name: string;
                            description: string | null;
                            metadata_schema: {
                                [key: string]: unknown;
                            } | null;
                            rules: {
                                source: string | string[];
                                target: string | string[];
                            }[] | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        } | {
                            slug: string;
                            name: string;
                            schedule: string;
                            prompt: string;
                            agent: string;
                            timezone: string | null;
                            description: string | null;
                            extraction_schema: {
                                [key: string]: unknown;
                            } | null;
                            tags: string[] | null;
                            sources: {
                                [key: string]: unknown;
                            }[] | null;
                            notification_channel: (string | {
                                [key: string]: unknown;
                            }) | null;
                            min_cooldown_seconds: number | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        };
                    } | {
                        /** @enum {string} */
                        result: "deleted" | "unchanged";
                        /** @enum {string} */
                        kind: "entity_type" | "relationship_type" | "watcher";
                        slug: string;
                    } | {
                        entityTypes?: {
                            slug: string;
                            name: string;
                            description: string | null;
                            icon: string | null;
                            color: string | null;
                            metadata_schema: {
                                [key: string]: unknown;
                            } | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                        relationshipTypes?: {
                            slug: string;
                            name: string;
                            description: string | null;
                            metadata_schema: {
                                [key: string]: unknown;
                            } | null;
                            rules: {
                                source: string | string[];
                                target: string | string[];
                            }[] | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                        watchers?: {
                            slug: string;
                            name: string;
                            schedule: string;
                            prompt: string;
                            agent: string;
                            timezone: string | null;
                            description: string | null;
                            extraction_schema: {
                                [key: string]: unknown;
                            } | null;
                            tags: string[] | null;
                            sources: {
                                [key: string]: unknown;
                            }[] | null;
                            notification_channel: (string | {
                                [key: string]: unknown;
                            }) | null;
                            min_cooldown_seconds: number | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "created" | "updated" | "unchanged";
                        /** @enum {string} */
                        kind: "entity_type" | "relationship_type" | "watcher";
                        item: {
                            slug: string;
                            name: string;
                            description: string | null;
                            icon: string | null;
                            color: string | null;
                            metadata_schema: {
                                [key: string]: unknown;
                            } | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        } | {
                            slug: string;
                            name: string;
                            description: string | null;
                            metadata_schema: {
                                [key: string]: unknown;
                            } | null;
                            rules: {
                                source: string | string[];
                                target: string | string[];
                            }[] | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        } | {
                            slug: string;
                            name: string;
                            schedule: string;
                            prompt: string;
                            agent: string;
                            timezone: string | null;
                            description: string | null;
                            extraction_schema: {
                                [key: string]: unknown;
                            } | null;
                            tags: string[] | null;
                            sources: {
                                [key: string]: unknown;
                            }[] | null;
                            notification_channel: (string | {
                                [key: string]: unknown;
                            }) | null;
                            min_cooldown_seconds: number | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `relationship_type_in_use`: the relationship type to delete has relationships */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unknown_agent`: a watcher names an agent that does not exist; `invalid_schema`: a `metadata_schema` or `extraction_schema` is not a JSON Schema that compiles */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getApplyManifest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        manifest: {
                            project: string | null;
                            agents: string[];
                            platforms: string[];
                            entityTypes: string[];
                            relationshipTypes: string[];
                            watchers: string[];
                            /**
                             * Format: date-time
                             * @description when the apply that declared exactly this was made: an apply that declares the same again writes nothing
                             */
                            appliedAt: string;
                        } | null;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    putApplyManifest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "project": "support-desk",
                 *       "agents": [
                 *         "support"
                 *       ],
                 *       "platforms": [
                 *         "support-team-chat-main"
                 *       ],
                 *       "entityTypes": [
                 *         "customer"
                 *       ],
                 *       "relationshipTypes": [],
                 *       "watchers": []
                 *     }
                 */
                "application/json": {
                    /** @description the project's name or folder name, for display; absent is null */
                    project?: string | null;
                    /** @description agentIds */
                    agents: string[];
                    /** @description stable platform IDs */
                    platforms: string[];
                    /** @description entity type slugs */
                    entityTypes: string[];
                    /** @description relationship type slugs */
                    relationshipTypes: string[];
                    /** @description watcher slugs */
                    watchers: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "updated" | "unchanged";
                        manifest: {
                            project: string | null;
                            agents: string[];
                            platforms: string[];
                            entityTypes: string[];
                            relationshipTypes: string[];
                            watchers: string[];
                            /**
                             * Format: date-time
                             * @description when the apply that declared exactly this was made: an apply that declares the same again writes nothing
                             */
                            appliedAt: string;
                        };
                    };
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "created";
                        manifest: {
                            project: string | null;
                            agents: string[];
                            platforms: string[];
                            entityTypes: string[];
                            relationshipTypes: string[];
                            watchers: string[];
                            /**
                             * Format: date-time
                             * @description when the apply that declared exactly this was made: an apply that declares the same again writes nothing
                             */
                            appliedAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sendMessage: {
        parameters: {
            query?: never;
            header?: {
                "idempotency-key"?: string;
                /** @description `wait=N` (N up to 60): answer 200 with the message once its turn ended, or 202 after N s */
                prefer?: string;
            };
            path: {
                /** @description agentId */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "platform": "api",
                 *       "content": "What changed in the billing docs this week?"
                 *     }
                 */
                "application/json": {
                    platform: string;
                    content: string;
                    /** @description platform `api`: a conversation shared on purpose. Warning: every token of the org that names this channel reads and writes the same conversation, its history included (the model sees it). Without it (and without `conversationId`), the message goes to a conversation of the calling token alone. Internal routes: default `default`. */
                    channel?: string;
                    /**
                     * Format: uuid
                     * @description platform `api`: continue this conversation (one of the agent's `api` conversations that the caller may see, as `conversationId` of an earlier answer); not with `channel`
                     */
                    conversationId?: string;
                    team_chat?: {
                        channel: string;
                        thread?: string;
                    };
                    messenger?: {
                        chat: string;
                    };
                };
                /**
                 * @example {
                 *       "platform": "api",
                 *       "content": "What changed in the billing docs this week?"
                 *     }
                 */
                "multipart/form-data": {
                    /** @description api, team_chat, messenger or internal.<name> */
                    platform: string;
                    content: string;
                    /** @description platform api: a conversation shared by every token of the org that names it (history included); without it, the calling token's own conversation */
                    channel?: string;
                    /**
                     * Format: uuid
                     * @description platform api: continue this conversation
                     */
                    conversationId?: string;
                    /** @description JSON text: {"channel": "...", "thread": "..."} */
                    team_chat?: string;
                    /** @description JSON text: {"chat": "..."} */
                    messenger?: string;
                    /** @description each at most SVC_UPLOAD_MAX_FILE_BYTES (10 MiB), together SVC_UPLOAD_MAX_TOTAL_BYTES (25 MiB), 10 at most */
                    files?: string[];
                };
            };
        };
        responses: {
            /** @description With `Prefer: wait=N`: the turn ended within N seconds */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** Format: uuid */
                        conversationId: string;
                        agentId: string;
                        /** @enum {string} */
                        status: "queued" | "running" | "awaiting_approval" | "completed" | "failed";
                        content: string;
                        reply: string | null;
                        error: {
                            code: string;
                            detail: string;
                        } | null;
                        /** @description "provider/model" that answered */
                        model: string | null;
                        usage: {
                            inputTokens: number | null;
                            outputTokens: number | null;
                            totalTokens: number | null;
                        } | null;
                        /** @description times a worker took the turn up */
                        attempts: number;
                        /** @description of the reply to the chat platform the message came from (null for other messages) */
                        delivery: ("pending" | "delivered" | "failed") | null;
                        /** @description why the reply did not reach the platform: its error */
                        deliveryError: {
                            code: string;
                            detail: string;
                        } | null;
                        /** @description files sent with the message (multipart), each downloadable at its url */
                        files: {
                            /** Format: uuid */
                            id: string;
                            name: string;
                            contentType: string;
                            size: number;
                            url: string;
                        }[];
                        createdAt: string;
                        startedAt: string | null;
                        firstTokenAt: string | null;
                        completedAt: string | null;
                        updatedAt: string;
                    };
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** Format: uuid */
                        conversationId: string;
                        /** @enum {string} */
                        status: "queued" | "running" | "awaiting_approval" | "completed" | "failed";
                        links: {
                            self: string;
                            /** @description the conversation's event stream (SSE) */
                            events: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The Idempotency-Key was used with another body, or the agent's guardrails refuse the message */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token's message budget is spent; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description agentId */
                agentId: string;
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** Format: uuid */
                        conversationId: string;
                        agentId: string;
                        /** @enum {string} */
                        status: "queued" | "running" | "awaiting_approval" | "completed" | "failed";
                        content: string;
                        reply: string | null;
                        error: {
                            code: string;
                            detail: string;
                        } | null;
                        /** @description "provider/model" that answered */
                        model: string | null;
                        usage: {
                            inputTokens: number | null;
                            outputTokens: number | null;
                            totalTokens: number | null;
                        } | null;
                        /** @description times a worker took the turn up */
                        attempts: number;
                        /** @description of the reply to the chat platform the message came from (null for other messages) */
                        delivery: ("pending" | "delivered" | "failed") | null;
                        /** @description why the reply did not reach the platform: its error */
                        deliveryError: {
                            code: string;
                            detail: string;
                        } | null;
                        /** @description files sent with the message (multipart), each downloadable at its url */
                        files: {
                            /** Format: uuid */
                            id: string;
                            name: string;
                            contentType: string;
                            size: number;
                            url: string;
                        }[];
                        createdAt: string;
                        startedAt: string | null;
                        firstTokenAt: string | null;
                        completedAt: string | null;
                        updatedAt: string;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    downloadMessageFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description agentId */
                agentId: string;
                messageId: string;
                fileId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file's bytes; its type is in the message's `files` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listConversations: {
        parameters: {
            query?: {
                /** @description the `nextCursor` of the previous page */
                cursor?: string;
                limit?: number;
                /** @description text a message or its reply contains, in any case */
                q?: string;
            };
            header?: never;
            path: {
                /** @description agentId */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        conversations: {
                            /** Format: uuid */
                            id: string;
                            agentId: string;
                            platform: string;
                            /** @description null for a private conversation: an `api` one of a single token's messages sent without `channel` */
                            channel: string | null;
                            /** @description of one caller alone: tokens without the `read` scope see only their own private conversations and the shared ones */
                            private: boolean;
                            thread: string | null;
                            createdAt: string;
                            lastMessageAt: string | null;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listConversationMessages: {
        parameters: {
            query?: {
                /** @description the `nextCursor` of the previous page */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description agentId */
                agentId: string;
                conversationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        messages: {
                            /** Format: uuid */
                            id: string;
                            /** Format: uuid */
                            conversationId: string;
                            agentId: string;
                            /** @enum {string} */
                            status: "queued" | "running" | "awaiting_approval" | "completed" | "failed";
                            content: string;
                            reply: string | null;
                            error: {
                                code: string;
                                detail: string;
                            } | null;
                            /** @description "provider/model" that answered */
                            model: string | null;
                            usage: {
                                inputTokens: number | null;
                                outputTokens: number | null;
                                totalTokens: number | null;
                            } | null;
                            /** @description times a worker took the turn up */
                            attempts: number;
                            /** @description of the reply to the chat platform the message came from (null for other messages) */
                            delivery: ("pending" | "delivered" | "failed") | null;
                            /** @description why the reply did not reach the platform: its error */
                            deliveryError: {
                                code: string;
                                detail: string;
                            } | null;
                            /** @description files sent with the message (multipart), each downloadable at its url */
                            files: {
                                /** Format: uuid */
                                id: string;
                                name: string;
                                contentType: string;
                                size: number;
                                url: string;
                            }[];
                            createdAt: string;
                            startedAt: string | null;
                            firstTokenAt: string | null;
                            completedAt: string | null;
                            updatedAt: string;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    streamConversationEvents: {
        parameters: {
            query?: {
                /** @description the last event id the client has */
                after?: number;
            };
            header?: never;
            path: {
                /** @description agentId */
                agentId: string;
                conversationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The conversation's events as they happen; the stream stays open */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example retry: 1000
                     *
                     *     id: 7
                     *     event: reply.delta
                     *     data: {"messageId":"0b6f3f4e-2f4b-4c55-9a43-55b0c2b7f1a2","text":"Hello","seq":7}
                     */
                    "text/event-stream": string;
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    decideApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: string;
                approvalId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "decision": "approve"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    decision: "approve" | "reject";
                    /** @description told to the model with a rejection */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        approval: {
                            /** Format: uuid */
                            id: string;
                            /** Format: uuid */
                            messageId: string;
                            toolCallId: string;
                            tool: string;
                            input: unknown;
                            /** @enum {string} */
                            status: "pending" | "approved" | "rejected" | "expired";
                            reason: string | null;
                            createdAt: string;
                            expiresAt: string;
                            decidedAt: string | null;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The call was decided already, or expired */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listApprovals: {
        parameters: {
            query?: {
                /** @description the `nextCursor` of the previous page */
                cursor?: string;
                limit?: number;
                /** @description `pending` (default): what waits for a decision; `all`: every status */
                status?: "pending" | "approved" | "rejected" | "expired" | "all";
                /** @description only this agent's tool calls */
                agentId?: string;
            };
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        approvals: ({
                            /** @enum {string} */
                            kind: "tool_call";
                            /**
                             * Format: uuid
                             * @description the approval id
                             */
                            id: string;
                            agentId: string;
                            /** Format: uuid */
                            conversationId: string;
                            /** Format: uuid */
                            messageId: string;
                            /** @description `<server>.<tool>` or `<connectorKey>.<actionKey>` */
                            tool: string;
                            input: unknown;
                            /**
                             * @description `expired` as soon as `expiresAt` has passed undecided, whether or not it was recorded yet
                             * @enum {string}
                             */
                            status: "pending" | "approved" | "rejected" | "expired";
                            reason: string | null;
                            createdAt: string;
                            expiresAt: string;
                            decidedAt: string | null;
                            /** @description post `{decision: "approve" | "reject", reason?}` here; decided once (409 after) */
                            decide: {
                                /** @enum {string} */
                                method: "POST";
                                /** @description `/api/v1/agents/{agentId}/approvals/{approvalId}`, relative to the API base (no SVC_BASE_PATH) */
                                path: string;
                                /**
                                 * @description the scope the decision takes
                                 * @enum {string}
                                 */
                                scope: "messages";
                            };
                        } | {
                            /** @enum {string} */
                            kind: "action_run";
                            /** @description the run id */
                            id: number;
                            connectionId: number;
                            connectorKey: string;
                            actionKey: string;
                            input: {
                                [key: string]: unknown;
                            };
                            /**
                             * @description its `approvalStatus`: `pending` while it waits; `rejected` also for a run cancelled while it waited (it never runs); never `expired`
                             * @enum {string}
                             */
                            status: "pending" | "approved" | "rejected" | "expired";
                            createdAt: string;
                            decidedAt: string | null;
                            /** @description post to one of these, with no body; decided once (409 after) */
                            decide: {
                                /** @enum {string} */
                                method: "POST";
                                /** @description `/api/{org}/runs/{runId}/approve`, relative to the API base (no SVC_BASE_PATH) */
                                approvePath: string;
                                /** @description `/api/{org}/runs/{runId}/reject`, relative to the API base (no SVC_BASE_PATH) */
                                rejectPath: string;
                                /**
                                 * @description the scope the decision takes
                                 * @enum {string}
                                 */
                                scope: "write";
                            };
                        })[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    verifyWebhook: {
        parameters: {
            query?: {
                "hub.mode"?: string;
                "hub.verify_token"?: string;
                "hub.challenge"?: string;
            };
            header?: never;
            path: {
                /** @description the platform's stable ID */
                stableId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The challenge, echoed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The verify token is not the platform's */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No WhatsApp platform has this stable ID */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many refused calls to this platform from this address (rate_limited, with Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A secret of the platform's config is not set (secret_missing) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    receiveWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the platform's stable ID */
                stableId: string;
            };
            cookie?: never;
        };
        /** @description The platform's JSON, exactly as it signed it */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "url_verification",
                 *       "challenge": "a-challenge-from-slack"
                 *     }
                 */
                "application/json": unknown;
            };
        };
        responses: {
            /** @description Taken (or, for Slack url_verification, the challenge) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        ok: true;
                        queued: number;
                        duplicates: number;
                        ignored: number;
                    } | {
                        challenge: string;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The call is not signed by the platform, or too old */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No platform has this stable ID */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is over 1 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not a body a platform sends */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many refused calls to this platform from this address (rate_limited, with Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A secret of the platform's config is not set (secret_missing) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listConnectors: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        connectors: {
                            connectorKey: string;
                            name: string;
                            version: string;
                            description: string | null;
                            /** @description the bundled connector it came from; null for posted source */
                            package: string | null;
                            /** @description the ConnectorDefinition, as validated */
                            definition: {
                                [key: string]: unknown;
                            };
                            /** @description The org's overrides of the connector's entity links, by rule */
                            entityLinkOverrides: {
                                [key: string]: {
                                    disable?: boolean;
                                    retargetEntityType?: string;
                                    autoCreate?: boolean;
                                    maskIdentities?: string[];
                                };
                            };
                            /** @description A connector without code: what svc read from its upstream; null for connectors with code */
                            generated: {
                                /** @enum {string} */
                                kind: "openapi" | "mcp";
                                /** @description when the upstream was last read */
                                refreshedAt: string;
                                /** @description operations or tools the upstream has that did not become actions, and why */
                                skipped: {
                                    operation: string;
                                    reason: string;
                                }[];
                                /** @description why the upstream could not be read in full (it wants credentials) */
                                warning: string | null;
                                /** @description A connector without code: whether each action (by key) needs approval, over what the upstream says (an MCP tool's annotations, an operation's HTTP method); kept across refreshes */
                                approvalOverrides: {
                                    [key: string]: boolean;
                                };
                            } | null;
                            createdAt: string;
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    installConnector: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "package": "rss"
                 *     }
                 */
                "application/json": {
                    /** @description a bundled connector: "rss" or "code-host" */
                    package: string;
                    /** @description The org's overrides of the connector's entity links, by rule */
                    entityLinkOverrides?: {
                        [key: string]: {
                            disable?: boolean;
                            retargetEntityType?: string;
                            autoCreate?: boolean;
                            maskIdentities?: string[];
                        };
                    };
                } | {
                    /** @description a ConnectorDefinition without code: with mcpConfig (an MCP server over streamable HTTP) or openapiConfig (an OpenAPI description); its actions are read from there */
                    definition: {
                        [key: string]: unknown;
                    };
                    /** @description A connector without code: whether each action (by key) needs approval, over what the upstream says (an MCP tool's annotations, an operation's HTTP method); kept across refreshes */
                    requiresApproval?: {
                        [key: string]: boolean;
                    };
                    /** @description The org's overrides of the connector's entity links, by rule */
                    entityLinkOverrides?: {
                        [key: string]: {
                            disable?: boolean;
                            retargetEntityType?: string;
                            autoCreate?: boolean;
                            maskIdentities?: string[];
                        };
                    };
                } | {
                    /** @description the connector's ES module; TypeScript allowed; it may import @svc/connector-sdk */
                    source: string;
                    /** @description The org's overrides of the connector's entity links, by rule */
                    entityLinkOverrides?: {
                        [key: string]: {
                            disable?: boolean;
                            retargetEntityType?: string;
                            autoCreate?: boolean;
                            maskIdentities?: string[];
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "updated" | "unchanged";
                        connector: {
                            connectorKey: string;
                            name: string;
                            version: string;
                            description: string | null;
                            /** @description the bundled connector it came from; null for posted source */
                            package: string | null;
                            /** @description the ConnectorDefinition, as validated */
                            definition: {
                                [key: string]: unknown;
                            };
                            /** @description The org's overrides of the connector's entity links, by rule */
                            entityLinkOverrides: {
                                [key: string]: {
                                    disable?: boolean;
                                    retargetEntityType?: string;
                                    autoCreate?: boolean;
                                    maskIdentities?: string[];
                                };
                            };
                            /** @description A connector without code: what svc read from its upstream; null for connectors with code */
                            generated: {
                                /** @enum {string} */
                                kind: "openapi" | "mcp";
                                /** @description when the upstream was last read */
                                refreshedAt: string;
                                /** @description operations or tools the upstream has that did not become actions, and why */
                                skipped: {
                                    operation: string;
                                    reason: string;
                                }[];
                                /** @description why the upstream could not be read in full (it wants credentials) */
                                warning: string | null;
                                /** @description A connector without code: whether each action (by key) needs approval, over what the upstream says (an MCP tool's annotations, an operation's HTTP method); kept across refreshes */
                                approvalOverrides: {
                                    [key: string]: boolean;
                                };
                            } | null;
                            createdAt: string;
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "created";
                        connector: {
                            connectorKey: string;
                            name: string;
                            version: string;
                            description: string | null;
                            /** @description the bundled connector it came from; null for posted source */
                            package: string | null;
                            /** @description the ConnectorDefinition, as validated */
                            definition: {
                                [key: string]: unknown;
                            };
                            /** @description The org's overrides of the connector's entity links, by rule */
                            entityLinkOverrides: {
                                [key: string]: {
                                    disable?: boolean;
                                    retargetEntityType?: string;
                                    autoCreate?: boolean;
                                    maskIdentities?: string[];
                                };
                            };
                            /** @description A connector without code: what svc read from its upstream; null for connectors with code */
                            generated: {
                                /** @enum {string} */
                                kind: "openapi" | "mcp";
                                /** @description when the upstream was last read */
                                refreshedAt: string;
                                /** @description operations or tools the upstream has that did not become actions, and why */
                                skipped: {
                                    operation: string;
                                    reason: string;
                                }[];
                                /** @description why the upstream could not be read in full (it wants credentials) */
                                warning: string | null;
                                /** @description A connector without code: whether each action (by key) needs approval, over what the upstream says (an MCP tool's annotations, an operation's HTTP method); kept across refreshes */
                                approvalOverrides: {
                                    [key: string]: boolean;
                                };
                            } | null;
                            createdAt: string;
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Posted source is not allowed on this server, or the token is not admin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The code could not be loaded, or its definition is not valid */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A definition without code: this server is reading too many upstreams; try again */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    refreshConnector: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "connectionId": 12
                 *     }
                 */
                "application/json": {
                    connectionId?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "updated" | "unchanged";
                        connector: {
                            connectorKey: string;
                            name: string;
                            version: string;
                            description: string | null;
                            /** @description the bundled connector it came from; null for posted source */
                            package: string | null;
                            /** @description the ConnectorDefinition, as validated */
                            definition: {
                                [key: string]: unknown;
                            };
                            /** @description The org's overrides of the connector's entity links, by rule */
                            entityLinkOverrides: {
                                [key: string]: {
                                    disable?: boolean;
                                    retargetEntityType?: string;
                                    autoCreate?: boolean;
                                    maskIdentities?: string[];
                                };
                            };
                            /** @description A connector without code: what svc read from its upstream; null for connectors with code */
                            generated: {
                                /** @enum {string} */
                                kind: "openapi" | "mcp";
                                /** @description when the upstream was last read */
                                refreshedAt: string;
                                /** @description operations or tools the upstream has that did not become actions, and why */
                                skipped: {
                                    operation: string;
                                    reason: string;
                                }[];
                                /** @description why the upstream could not be read in full (it wants credentials) */
                                warning: string | null;
                                /** @description A connector without code: whether each action (by key) needs approval, over what the upstream says (an MCP tool's annotations, an operation's HTTP method); kept across refreshes */
                                approvalOverrides: {
                                    [key: string]: boolean;
                                };
                            } | null;
                            createdAt: string;
                            updatedAt: string;
                        };
                        /** @description action keys the upstream offers now and did not before */
                        added: string[];
                        /** @description action keys it no longer offers: no longer tools */
                        removed: string[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The connector changed while its upstream was read: nothing was written */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The connector has code, or its upstream could not be read */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description This server is reading too many upstreams; try again */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listConnectorPackages: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        packages: {
                            /** @description what `POST /api/{org}/connectors` takes as `package` */
                            package: string;
                            /** @description its definition's key: the `connectorKey` it is installed under */
                            key: string;
                            name: string;
                            description: string | null;
                            /** @description the version installing it now gives */
                            version: string;
                            /** @description the types of the auth methods its definition declares, in its order; empty when it declares none */
                            authMethods: ("none" | "env_keys" | "oauth" | "browser" | "interactive")[];
                            /** @description the org has a connector of this key (installing the package again upgrades it in place) */
                            installed: boolean;
                            /** @description the version the org has; null when not installed */
                            installedVersion: string | null;
                        }[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getConnector: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        connector: {
                            connectorKey: string;
                            name: string;
                            version: string;
                            description: string | null;
                            /** @description the bundled connector it came from; null for posted source */
                            package: string | null;
                            /** @description the ConnectorDefinition, as validated */
                            definition: {
                                [key: string]: unknown;
                            };
                            /** @description The org's overrides of the connector's entity links, by rule */
                            entityLinkOverrides: {
                                [key: string]: {
                                    disable?: boolean;
                                    retargetEntityType?: string;
                                    autoCreate?: boolean;
                                    maskIdentities?: string[];
                                };
                            };
                            /** @description A connector without code: what svc read from its upstream; null for connectors with code */
                            generated: {
                                /** @enum {string} */
                                kind: "openapi" | "mcp";
                                /** @description when the upstream was last read */
                                refreshedAt: string;
                                /** @description operations or tools the upstream has that did not become actions, and why */
                                skipped: {
                                    operation: string;
                                    reason: string;
                                }[];
                                /** @description why the upstream could not be read in full (it wants credentials) */
                                warning: string | null;
                                /** @description A connector without code: whether each action (by key) needs approval, over what the upstream says (an MCP tool's annotations, an operation's HTTP method); kept across refreshes */
                                approvalOverrides: {
                                    [key: string]: boolean;
                                };
                            } | null;
                            createdAt: string;
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listConnections: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        connections: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            connectorKey: string;
                            displayName: string | null;
                            /** @enum {string} */
                            status: "active" | "paused" | "error" | "revoked";
                            accountId: string | null;
                            /** @description the fields of its credentials that hold a value (never the values) */
                            credentialKeys: string[];
                            /** @description the OAuth scopes the provider granted; null when it holds no OAuth grant */
                            grantedScopes: string[] | null;
                            entityIds: number[] | null;
                            config: {
                                [key: string]: unknown;
                            };
                            errorMessage: string | null;
                            createdBy: string | null;
                            createdAt: string;
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "connectorKey": "rss",
                 *       "displayName": "Product blog"
                 *     }
                 */
                "application/json": {
                    connectorKey: string;
                    displayName?: string;
                    /** @description checked against the connector's optionsSchema */
                    config?: {
                        [key: string]: unknown;
                    };
                    credentials?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        connection: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            connectorKey: string;
                            displayName: string | null;
                            /** @enum {string} */
                            status: "active" | "paused" | "error" | "revoked";
                            accountId: string | null;
                            /** @description the fields of its credentials that hold a value (never the values) */
                            credentialKeys: string[];
                            /** @description the OAuth scopes the provider granted; null when it holds no OAuth grant */
                            grantedScopes: string[] | null;
                            entityIds: number[] | null;
                            config: {
                                [key: string]: unknown;
                            };
                            errorMessage: string | null;
                            createdBy: string | null;
                            createdAt: string;
                            updatedAt: string;
                        };
                        feeds: {
                            id: number;
                            organizationId: string;
                            connectionId: number;
                            feedKey: string;
                            /** @description the feed definition's displayNameTemplate, filled from config */
                            displayName: string | null;
                            /** @enum {string} */
                            status: "active" | "paused" | "error";
                            entityIds: number[] | null;
                            config: {
                                [key: string]: unknown;
                            };
                            checkpoint: {
                                [key: string]: unknown;
                            } | null;
                            syncIntervalMs: number;
                            nextSyncAt: string | null;
                            lastSyncAt: string | null;
                            lastSyncStatus: string | null;
                            lastError: string | null;
                            consecutiveFailures: number;
                            itemsCollected: number;
                            createdAt: string;
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The connector is not installed, or the config or credentials are not what it takes */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                connectionId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        connection: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            connectorKey: string;
                            displayName: string | null;
                            /** @enum {string} */
                            status: "active" | "paused" | "error" | "revoked";
                            accountId: string | null;
                            /** @description the fields of its credentials that hold a value (never the values) */
                            credentialKeys: string[];
                            /** @description the OAuth scopes the provider granted; null when it holds no OAuth grant */
                            grantedScopes: string[] | null;
                            entityIds: number[] | null;
                            config: {
                                [key: string]: unknown;
                            };
                            errorMessage: string | null;
                            createdBy: string | null;
                            createdAt: string;
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                connectionId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "deleted";
                        connectionId: number;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The connection holds events, or a run of it is pending or running */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                connectionId: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "paused"
                 *     }
                 */
                "application/json": {
                    displayName?: string;
                    /** @enum {string} */
                    status?: "active" | "paused";
                    credentials?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "updated" | "unchanged";
                        connection: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            connectorKey: string;
                            displayName: string | null;
                            /** @enum {string} */
                            status: "active" | "paused" | "error" | "revoked";
                            accountId: string | null;
                            /** @description the fields of its credentials that hold a value (never the values) */
                            credentialKeys: string[];
                            /** @description the OAuth scopes the provider granted; null when it holds no OAuth grant */
                            grantedScopes: string[] | null;
                            entityIds: number[] | null;
                            config: {
                                [key: string]: unknown;
                            };
                            errorMessage: string | null;
                            createdBy: string | null;
                            createdAt: string;
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The connection is in error or revoked: it needs new credentials */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials are not what the connector takes */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    revokeConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                connectionId: number;
            };
            cookie?: never;
        };
        /** @description why, kept in its errorMessage; the body may be left out */
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "reason": "the account was closed"
                 *     }
                 */
                "application/json": {
                    reason?: string;
                } | null;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        connection: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            connectorKey: string;
                            displayName: string | null;
                            /** @enum {string} */
                            status: "active" | "paused" | "error" | "revoked";
                            accountId: string | null;
                            /** @description the fields of its credentials that hold a value (never the values) */
                            credentialKeys: string[];
                            /** @description the OAuth scopes the provider granted; null when it holds no OAuth grant */
                            grantedScopes: string[] | null;
                            entityIds: number[] | null;
                            config: {
                                [key: string]: unknown;
                            };
                            errorMessage: string | null;
                            createdBy: string | null;
                            createdAt: string;
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listFeeds: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                connectionId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        feeds: {
                            id: number;
                            organizationId: string;
                            connectionId: number;
                            feedKey: string;
                            /** @description the feed definition's displayNameTemplate, filled from config */
                            displayName: string | null;
                            /** @enum {string} */
                            status: "active" | "paused" | "error";
                            entityIds: number[] | null;
                            config: {
                                [key: string]: unknown;
                            };
                            checkpoint: {
                                [key: string]: unknown;
                            } | null;
                            syncIntervalMs: number;
                            nextSyncAt: string | null;
                            lastSyncAt: string | null;
                            lastSyncStatus: string | null;
                            lastError: string | null;
                            consecutiveFailures: number;
                            itemsCollected: number;
                            createdAt: string;
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateFeed: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                feedId: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "config": {
                 *         "url": "https://example.com/feed.xml"
                 *       },
                 *       "syncIntervalMs": 3600000
                 *     }
                 */
                "application/json": {
                    config?: {
                        [key: string]: unknown;
                    };
                    syncIntervalMs?: number;
                    /** @enum {string} */
                    status?: "active" | "paused";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "updated" | "unchanged";
                        feed: {
                            id: number;
                            organizationId: string;
                            connectionId: number;
                            feedKey: string;
                            /** @description the feed definition's displayNameTemplate, filled from config */
                            displayName: string | null;
                            /** @enum {string} */
                            status: "active" | "paused" | "error";
                            entityIds: number[] | null;
                            config: {
                                [key: string]: unknown;
                            };
                            checkpoint: {
                                [key: string]: unknown;
                            } | null;
                            syncIntervalMs: number;
                            nextSyncAt: string | null;
                            lastSyncAt: string | null;
                            lastSyncStatus: string | null;
                            lastError: string | null;
                            consecutiveFailures: number;
                            itemsCollected: number;
                            createdAt: string;
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The config is not what the feed's configSchema asks */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    startOAuth: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                connectionId: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "scopes": [
                 *         "repo"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description optional scopes to ask for as well */
                    scopes?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        authorizationUrl: string;
                        expiresAt: string;
                        attemptId: number;
                        /** @description the callback URL to register with the provider */
                        redirectUri: string;
                        scopes: string[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The connector has no oauth method, a scope is not one it asks, or the OAuth client is not set up */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getOAuthAttempt: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                connectionId: number;
                attemptId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        attempt: {
                            id: number;
                            connectionId: number;
                            /**
                             * @description `pending` until the provider sends the person back; `expired` when nobody came back in time
                             * @enum {string}
                             */
                            status: "pending" | "connected" | "denied" | "failed" | "expired";
                            /** @description what happened, and what to do next when it did not work */
                            message: string | null;
                            /** @description the scopes asked for */
                            scopes: string[];
                            expiresAt: string;
                            createdAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    oauthCallback: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page for the person: connected, or refused (a used, expired or unknown `state`, consent declined, a failed exchange) and what to do next */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getBrowserSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                connectionId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session: {
                            capturedAt: string;
                            /** @description how many cookies the session holds */
                            cookies: number;
                            /** @description each of the connector's requiredDomains and how many of its cookies were captured */
                            domains: {
                                domain: string;
                                cookies: number;
                            }[];
                        } | null;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    captureBrowserSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                connectionId: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "cdpUrl": "http://127.0.0.1:9222"
                 *     }
                 */
                "application/json": {
                    /** @description http(s) or ws(s) URL of the DevTools endpoint, such as http://127.0.0.1:9222 */
                    cdpUrl?: string;
                    /** @description cookies captured elsewhere: {name, value, domain, path, expires, httpOnly, secure, sameSite} */
                    cookies?: {
                        name: string;
                        value: string;
                        domain: string;
                        /** @default / */
                        path?: string;
                        /**
                         * @description Unix time in seconds; -1 for a session cookie
                         * @default -1
                         */
                        expires?: number;
                        /** @default false */
                        httpOnly?: boolean;
                        /** @default false */
                        secure?: boolean;
                        /**
                         * @default Lax
                         * @enum {string}
                         */
                        sameSite?: "Strict" | "Lax" | "None";
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        connection: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            connectorKey: string;
                            displayName: string | null;
                            /** @enum {string} */
                            status: "active" | "paused" | "error" | "revoked";
                            accountId: string | null;
                            /** @description the fields of its credentials that hold a value (never the values) */
                            credentialKeys: string[];
                            /** @description the OAuth scopes the provider granted; null when it holds no OAuth grant */
                            grantedScopes: string[] | null;
                            entityIds: number[] | null;
                            config: {
                                [key: string]: unknown;
                            };
                            errorMessage: string | null;
                            createdBy: string | null;
                            createdAt: string;
                            updatedAt: string;
                        };
                        session: {
                            capturedAt: string;
                            /** @description how many cookies the session holds */
                            cookies: number;
                            /** @description each of the connector's requiredDomains and how many of its cookies were captured */
                            domains: {
                                domain: string;
                                cookies: number;
                            }[];
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The connector has no browser auth, the DevTools endpoint was refused or could not be read, or no cookie of a required domain was captured */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    syncFeed: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                feedId: number;
            };
            cookie?: never;
        };
        /** @description no fields; the body may be left out */
        requestBody?: {
            content: {
                "application/json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            /** @enum {string} */
                            runType: "sync" | "action" | "code" | "watcher" | "auth";
                            feedId: number | null;
                            connectionId: number | null;
                            actionKey: string | null;
                            actionInput: {
                                [key: string]: unknown;
                            } | null;
                            actionOutput: {
                                [key: string]: unknown;
                            } | null;
                            /** @enum {string} */
                            approvalStatus: "pending" | "approved" | "rejected" | "auto";
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed" | "cancelled" | "timeout";
                            claimedBy: string | null;
                            claimedAt: string | null;
                            lastHeartbeatAt: string | null;
                            completedAt: string | null;
                            connectorKey: string | null;
                            connectorVersion: string | null;
                            checkpoint: {
                                [key: string]: unknown;
                            } | null;
                            itemsCollected: number;
                            errorMessage: string | null;
                            createdAt: string;
                            /** @description envelopes refused (an unknown kind, metadata its schema does not take): in the log, never collected */
                            itemsRejected: number;
                            /** @description log lines the run wrote; the latest 1000 are kept */
                            logLines: number;
                        };
                        created: boolean;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The connection is in error or revoked: it needs connecting again */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listRuns: {
        parameters: {
            query?: {
                /** @description the `nextCursor` of the previous page */
                cursor?: string;
                limit?: number;
                feedId?: number;
                connectionId?: number;
                status?: "pending" | "running" | "completed" | "failed" | "cancelled" | "timeout";
                runType?: "sync" | "action" | "code" | "watcher" | "auth";
            };
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        runs: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            /** @enum {string} */
                            runType: "sync" | "action" | "code" | "watcher" | "auth";
                            feedId: number | null;
                            connectionId: number | null;
                            actionKey: string | null;
                            actionInput: {
                                [key: string]: unknown;
                            } | null;
                            actionOutput: {
                                [key: string]: unknown;
                            } | null;
                            /** @enum {string} */
                            approvalStatus: "pending" | "approved" | "rejected" | "auto";
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed" | "cancelled" | "timeout";
                            claimedBy: string | null;
                            claimedAt: string | null;
                            lastHeartbeatAt: string | null;
                            completedAt: string | null;
                            connectorKey: string | null;
                            connectorVersion: string | null;
                            checkpoint: {
                                [key: string]: unknown;
                            } | null;
                            itemsCollected: number;
                            errorMessage: string | null;
                            createdAt: string;
                            /** @description envelopes refused (an unknown kind, metadata its schema does not take): in the log, never collected */
                            itemsRejected: number;
                            /** @description log lines the run wrote; the latest 1000 are kept */
                            logLines: number;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                runId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            /** @enum {string} */
                            runType: "sync" | "action" | "code" | "watcher" | "auth";
                            feedId: number | null;
                            connectionId: number | null;
                            actionKey: string | null;
                            actionInput: {
                                [key: string]: unknown;
                            } | null;
                            actionOutput: {
                                [key: string]: unknown;
                            } | null;
                            /** @enum {string} */
                            approvalStatus: "pending" | "approved" | "rejected" | "auto";
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed" | "cancelled" | "timeout";
                            claimedBy: string | null;
                            claimedAt: string | null;
                            lastHeartbeatAt: string | null;
                            completedAt: string | null;
                            connectorKey: string | null;
                            connectorVersion: string | null;
                            checkpoint: {
                                [key: string]: unknown;
                            } | null;
                            itemsCollected: number;
                            errorMessage: string | null;
                            createdAt: string;
                            /** @description envelopes refused (an unknown kind, metadata its schema does not take): in the log, never collected */
                            itemsRejected: number;
                            /** @description log lines the run wrote; the latest 1000 are kept */
                            logLines: number;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listRunLogs: {
        parameters: {
            query?: {
                /** @description the last `seq` already read */
                after?: number;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                runId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        lines: {
                            seq: number;
                            /** @enum {string} */
                            level: "debug" | "info" | "warn" | "error";
                            time: string;
                            msg: string;
                            fields: {
                                [key: string]: unknown;
                            } | null;
                        }[];
                        /** @description the `after` of the next request */
                        nextAfter: number;
                        /**
                         * @description the run’s status before these lines were read
                         * @enum {string}
                         */
                        runStatus: "pending" | "running" | "completed" | "failed" | "cancelled" | "timeout";
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    cancelRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                runId: number;
            };
            cookie?: never;
        };
        /** @description no fields; the body may be left out */
        requestBody?: {
            content: {
                "application/json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            /** @enum {string} */
                            runType: "sync" | "action" | "code" | "watcher" | "auth";
                            feedId: number | null;
                            connectionId: number | null;
                            actionKey: string | null;
                            actionInput: {
                                [key: string]: unknown;
                            } | null;
                            actionOutput: {
                                [key: string]: unknown;
                            } | null;
                            /** @enum {string} */
                            approvalStatus: "pending" | "approved" | "rejected" | "auto";
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed" | "cancelled" | "timeout";
                            claimedBy: string | null;
                            claimedAt: string | null;
                            lastHeartbeatAt: string | null;
                            completedAt: string | null;
                            connectorKey: string | null;
                            connectorVersion: string | null;
                            checkpoint: {
                                [key: string]: unknown;
                            } | null;
                            itemsCollected: number;
                            errorMessage: string | null;
                            createdAt: string;
                            /** @description envelopes refused (an unknown kind, metadata its schema does not take): in the log, never collected */
                            itemsRejected: number;
                            /** @description log lines the run wrote; the latest 1000 are kept */
                            logLines: number;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The run has ended already (completed, failed, timed out or cancelled) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    approveRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                runId: number;
            };
            cookie?: never;
        };
        /** @description no fields; the body may be left out */
        requestBody?: {
            content: {
                "application/json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            /** @enum {string} */
                            runType: "sync" | "action" | "code" | "watcher" | "auth";
                            feedId: number | null;
                            connectionId: number | null;
                            actionKey: string | null;
                            actionInput: {
                                [key: string]: unknown;
                            } | null;
                            actionOutput: {
                                [key: string]: unknown;
                            } | null;
                            /** @enum {string} */
                            approvalStatus: "pending" | "approved" | "rejected" | "auto";
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed" | "cancelled" | "timeout";
                            claimedBy: string | null;
                            claimedAt: string | null;
                            lastHeartbeatAt: string | null;
                            completedAt: string | null;
                            connectorKey: string | null;
                            connectorVersion: string | null;
                            checkpoint: {
                                [key: string]: unknown;
                            } | null;
                            itemsCollected: number;
                            errorMessage: string | null;
                            createdAt: string;
                            /** @description envelopes refused (an unknown kind, metadata its schema does not take): in the log, never collected */
                            itemsRejected: number;
                            /** @description log lines the run wrote; the latest 1000 are kept */
                            logLines: number;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The run is not waiting for approval (decided already, or never needed it) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    rejectRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                runId: number;
            };
            cookie?: never;
        };
        /** @description no fields; the body may be left out */
        requestBody?: {
            content: {
                "application/json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            /** @enum {string} */
                            runType: "sync" | "action" | "code" | "watcher" | "auth";
                            feedId: number | null;
                            connectionId: number | null;
                            actionKey: string | null;
                            actionInput: {
                                [key: string]: unknown;
                            } | null;
                            actionOutput: {
                                [key: string]: unknown;
                            } | null;
                            /** @enum {string} */
                            approvalStatus: "pending" | "approved" | "rejected" | "auto";
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed" | "cancelled" | "timeout";
                            claimedBy: string | null;
                            claimedAt: string | null;
                            lastHeartbeatAt: string | null;
                            completedAt: string | null;
                            connectorKey: string | null;
                            connectorVersion: string | null;
                            checkpoint: {
                                [key: string]: unknown;
                            } | null;
                            itemsCollected: number;
                            errorMessage: string | null;
                            createdAt: string;
                            /** @description envelopes refused (an unknown kind, metadata its schema does not take): in the log, never collected */
                            itemsRejected: number;
                            /** @description log lines the run wrote; the latest 1000 are kept */
                            logLines: number;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The run is not waiting for approval (decided already, or never needed it) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    startAuthRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                connectionId: number;
            };
            cookie?: never;
        };
        /** @description no fields; the body may be left out */
        requestBody?: {
            content: {
                "application/json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            /** @enum {string} */
                            runType: "sync" | "action" | "code" | "watcher" | "auth";
                            feedId: number | null;
                            connectionId: number | null;
                            actionKey: string | null;
                            actionInput: {
                                [key: string]: unknown;
                            } | null;
                            actionOutput: {
                                [key: string]: unknown;
                            } | null;
                            /** @enum {string} */
                            approvalStatus: "pending" | "approved" | "rejected" | "auto";
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed" | "cancelled" | "timeout";
                            claimedBy: string | null;
                            claimedAt: string | null;
                            lastHeartbeatAt: string | null;
                            completedAt: string | null;
                            connectorKey: string | null;
                            connectorVersion: string | null;
                            checkpoint: {
                                [key: string]: unknown;
                            } | null;
                            itemsCollected: number;
                            errorMessage: string | null;
                            createdAt: string;
                            /** @description envelopes refused (an unknown kind, metadata its schema does not take): in the log, never collected */
                            itemsRejected: number;
                            /** @description log lines the run wrote; the latest 1000 are kept */
                            logLines: number;
                        };
                        created: boolean;
                    };
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            /** @enum {string} */
                            runType: "sync" | "action" | "code" | "watcher" | "auth";
                            feedId: number | null;
                            connectionId: number | null;
                            actionKey: string | null;
                            actionInput: {
                                [key: string]: unknown;
                            } | null;
                            actionOutput: {
                                [key: string]: unknown;
                            } | null;
                            /** @enum {string} */
                            approvalStatus: "pending" | "approved" | "rejected" | "auto";
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed" | "cancelled" | "timeout";
                            claimedBy: string | null;
                            claimedAt: string | null;
                            lastHeartbeatAt: string | null;
                            completedAt: string | null;
                            connectorKey: string | null;
                            connectorVersion: string | null;
                            checkpoint: {
                                [key: string]: unknown;
                            } | null;
                            itemsCollected: number;
                            errorMessage: string | null;
                            createdAt: string;
                            /** @description envelopes refused (an unknown kind, metadata its schema does not take): in the log, never collected */
                            itemsRejected: number;
                            /** @description log lines the run wrote; the latest 1000 are kept */
                            logLines: number;
                        };
                        created: boolean;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The connection's connector has no interactive auth method, or runs on a device */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAuthRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                runId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            /** @enum {string} */
                            runType: "sync" | "action" | "code" | "watcher" | "auth";
                            feedId: number | null;
                            connectionId: number | null;
                            actionKey: string | null;
                            actionInput: {
                                [key: string]: unknown;
                            } | null;
                            actionOutput: {
                                [key: string]: unknown;
                            } | null;
                            /** @enum {string} */
                            approvalStatus: "pending" | "approved" | "rejected" | "auto";
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed" | "cancelled" | "timeout";
                            claimedBy: string | null;
                            claimedAt: string | null;
                            lastHeartbeatAt: string | null;
                            completedAt: string | null;
                            connectorKey: string | null;
                            connectorVersion: string | null;
                            checkpoint: {
                                [key: string]: unknown;
                            } | null;
                            itemsCollected: number;
                            errorMessage: string | null;
                            createdAt: string;
                            /** @description envelopes refused (an unknown kind, metadata its schema does not take): in the log, never collected */
                            itemsRejected: number;
                            /** @description log lines the run wrote; the latest 1000 are kept */
                            logLines: number;
                        };
                        artifact: ({
                            /** @enum {string} */
                            type: "qr";
                            value: string;
                            expiresAt?: string;
                            instructions?: string;
                        } | {
                            /** @enum {string} */
                            type: "code";
                            value: string;
                            expiresAt?: string;
                            instructions?: string;
                        } | {
                            /** @enum {string} */
                            type: "redirect";
                            /** Format: uri */
                            url: string;
                            /** @enum {string} */
                            mode: "popup" | "same-tab";
                            awaitSignal: string;
                            instructions?: string;
                        } | {
                            /** @enum {string} */
                            type: "prompt";
                            fields: {
                                key: string;
                                label: string;
                                /** @enum {string} */
                                kind: "text" | "password" | "otp";
                                required?: boolean;
                            }[];
                            submitSignal: string;
                            instructions?: string;
                        } | {
                            /** @enum {string} */
                            type: "status";
                            message: string;
                        }) | null;
                        /** @description the artifact's event id in the run's stream */
                        artifactSeq: number | null;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    streamAuthRunEvents: {
        parameters: {
            query?: {
                /** @description the last event id the client has */
                after?: number;
            };
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                runId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run's events, then the end of the stream after its final status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example retry: 1000
                     *
                     *     id: 1
                     *     event: status
                     *     data: {"seq":1,"status":"running","errorMessage":null}
                     */
                    "text/event-stream": string;
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    signalAuthRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                runId: number;
                name: string;
            };
            cookie?: never;
        };
        /** @description what awaitSignal resolves to */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "123456"
                 *     }
                 */
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        name: string;
                        /** @description the run’s status as the signal was kept */
                        runStatus: string;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The auth run has ended (completed, failed, cancelled or timed out) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than 16384 bytes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @description the `nextCursor` of the previous page */
                cursor?: string;
                limit?: number;
                connectionId?: number;
                feedId?: number;
                feedKey?: string;
                kind?: string;
                entityId?: number;
                since?: string;
                until?: string;
                /** @description `true` includes each event’s `embedding` (large; left out otherwise) */
                embedding?: "true" | "false";
            };
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        events: {
                            id: number;
                            /** @description null for an event no connector wrote: a watcher's summary, a fact an agent saved */
                            connectionId: number | null;
                            feedId: number | null;
                            origin_id: string;
                            origin_type: string | null;
                            /** @description text, markdown, json_template, media or empty */
                            payload_type: string | null;
                            payload_text: string;
                            payload_data: {
                                [key: string]: unknown;
                            } | null;
                            payload_template: {
                                [key: string]: unknown;
                            } | null;
                            attachments: unknown[] | null;
                            title: string | null;
                            author_name: string | null;
                            source_url: string | null;
                            occurred_at: string;
                            semantic_type: string | null;
                            score: number | null;
                            origin_parent_id: string | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            /** @description only with `?embedding=true` */
                            embedding?: number[] | null;
                            /** @description the entities the connector’s entity links tied it to */
                            entityIds: number[];
                            /** @description links its rules asked for that could not be made (`ambiguous`: an identity of two entities, ...), and traits not written because they fail the entity type's metadata_schema (`invalid_metadata`) */
                            linkIssues: {
                                [key: string]: unknown;
                            }[];
                            createdAt: string;
                            updatedAt: string;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getEvent: {
        parameters: {
            query?: {
                /** @description `true` includes each event’s `embedding` (large; left out otherwise) */
                embedding?: "true" | "false";
            };
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                eventId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        event: {
                            id: number;
                            /** @description null for an event no connector wrote: a watcher's summary, a fact an agent saved */
                            connectionId: number | null;
                            feedId: number | null;
                            origin_id: string;
                            origin_type: string | null;
                            /** @description text, markdown, json_template, media or empty */
                            payload_type: string | null;
                            payload_text: string;
                            payload_data: {
                                [key: string]: unknown;
                            } | null;
                            payload_template: {
                                [key: string]: unknown;
                            } | null;
                            attachments: unknown[] | null;
                            title: string | null;
                            author_name: string | null;
                            source_url: string | null;
                            occurred_at: string;
                            semantic_type: string | null;
                            score: number | null;
                            origin_parent_id: string | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            /** @description only with `?embedding=true` */
                            embedding?: number[] | null;
                            /** @description the entities the connector’s entity links tied it to */
                            entityIds: number[];
                            /** @description links its rules asked for that could not be made (`ambiguous`: an identity of two entities, ...), and traits not written because they fail the entity type's metadata_schema (`invalid_metadata`) */
                            linkIssues: {
                                [key: string]: unknown;
                            }[];
                            createdAt: string;
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    runAction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                connectionId: number;
                actionKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "input": {
                 *         "title": "Follow up with Acme"
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description default: {} */
                    input?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run: {
                            id: number;
                            /** @description the org's slug */
                            organizationId: string;
                            /** @enum {string} */
                            runType: "sync" | "action" | "code" | "watcher" | "auth";
                            feedId: number | null;
                            connectionId: number | null;
                            actionKey: string | null;
                            actionInput: {
                                [key: string]: unknown;
                            } | null;
                            actionOutput: {
                                [key: string]: unknown;
                            } | null;
                            /** @enum {string} */
                            approvalStatus: "pending" | "approved" | "rejected" | "auto";
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed" | "cancelled" | "timeout";
                            claimedBy: string | null;
                            claimedAt: string | null;
                            lastHeartbeatAt: string | null;
                            completedAt: string | null;
                            connectorKey: string | null;
                            connectorVersion: string | null;
                            checkpoint: {
                                [key: string]: unknown;
                            } | null;
                            itemsCollected: number;
                            errorMessage: string | null;
                            createdAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such connection in this org, or its connector has no such action */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The connection is not active (paused, in error or revoked) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The input is not what the action's inputSchema takes */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listEntities: {
        parameters: {
            query?: {
                /** @description the `nextCursor` of the previous page */
                cursor?: string;
                limit?: number;
                /** @description an entity type slug */
                type?: string;
                /** @description namespace:value */
                identity?: string;
            };
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        entities: {
                            id: number;
                            entityType: string;
                            title: string | null;
                            /** @description set by the entity links' traits */
                            traits: {
                                [key: string]: unknown;
                            };
                            /** @description what finds the entity: one entity per (type, namespace, value), values normalised */
                            identities: {
                                namespace: string;
                                value: string;
                            }[];
                            createdAt: string;
                            updatedAt: string;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getEntity: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                entityId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        entity: {
                            id: number;
                            entityType: string;
                            title: string | null;
                            /** @description set by the entity links' traits */
                            traits: {
                                [key: string]: unknown;
                            };
                            /** @description what finds the entity: one entity per (type, namespace, value), values normalised */
                            identities: {
                                namespace: string;
                                value: string;
                            }[];
                            createdAt: string;
                            updatedAt: string;
                            relationships: {
                                id: number;
                                /** @description the relationship type slug */
                                type: string;
                                sourceEntityId: number;
                                targetEntityId: number;
                                metadata: {
                                    [key: string]: unknown;
                                };
                                createdAt: string;
                            }[];
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWatchers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        watchers: {
                            slug: string;
                            name: string;
                            agent: string;
                            schedule: string;
                            timezone: string;
                            tags: string[];
                            /** @enum {string} */
                            status: "active" | "paused";
                            pausedReason: string | null;
                            consecutiveFailures: number;
                            lastError: string | null;
                            /** @description the arrival mark: the next window starts here */
                            nextWindowStart: string | null;
                            nextRunAt: string | null;
                            lastWindow: {
                                id: number;
                                /** @description events that arrived (were received by svc) from here… */
                                windowStart: string;
                                /** @description …up to here, not included */
                                windowEnd: string;
                                /** @enum {string} */
                                status: "pending" | "running" | "completed" | "failed";
                                attempts: number;
                                /** @description when a failed window is tried again */
                                retryAt: string | null;
                                /** @description the `watcher` run of the current attempt */
                                runId: number | null;
                                /** @description the message its agent's turn answers */
                                messageId: string | null;
                                eventCount: number | null;
                                /** @description some events did not fit the turn; the model was told how many and given memory_search */
                                truncated: boolean;
                                error: string | null;
                                /** @description the `summary` event written when it completed */
                                summaryEventId: number | null;
                                createdAt: string;
                                completedAt: string | null;
                            } | null;
                        }[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getWatcher: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        watcher: {
                            slug: string;
                            name: string;
                            agent: string;
                            schedule: string;
                            timezone: string;
                            tags: string[];
                            /** @enum {string} */
                            status: "active" | "paused";
                            pausedReason: string | null;
                            consecutiveFailures: number;
                            lastError: string | null;
                            /** @description the arrival mark: the next window starts here */
                            nextWindowStart: string | null;
                            nextRunAt: string | null;
                            lastWindow: {
                                id: number;
                                /** @description events that arrived (were received by svc) from here… */
                                windowStart: string;
                                /** @description …up to here, not included */
                                windowEnd: string;
                                /** @enum {string} */
                                status: "pending" | "running" | "completed" | "failed";
                                attempts: number;
                                /** @description when a failed window is tried again */
                                retryAt: string | null;
                                /** @description the `watcher` run of the current attempt */
                                runId: number | null;
                                /** @description the message its agent's turn answers */
                                messageId: string | null;
                                eventCount: number | null;
                                /** @description some events did not fit the turn; the model was told how many and given memory_search */
                                truncated: boolean;
                                error: string | null;
                                /** @description the `summary` event written when it completed */
                                summaryEventId: number | null;
                                createdAt: string;
                                completedAt: string | null;
                            } | null;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateWatcher: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "paused"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    status: "active" | "paused";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        watcher: {
                            slug: string;
                            name: string;
                            agent: string;
                            schedule: string;
                            timezone: string;
                            tags: string[];
                            /** @enum {string} */
                            status: "active" | "paused";
                            pausedReason: string | null;
                            consecutiveFailures: number;
                            lastError: string | null;
                            /** @description the arrival mark: the next window starts here */
                            nextWindowStart: string | null;
                            nextRunAt: string | null;
                            lastWindow: {
                                id: number;
                                /** @description events that arrived (were received by svc) from here… */
                                windowStart: string;
                                /** @description …up to here, not included */
                                windowEnd: string;
                                /** @enum {string} */
                                status: "pending" | "running" | "completed" | "failed";
                                attempts: number;
                                /** @description when a failed window is tried again */
                                retryAt: string | null;
                                /** @description the `watcher` run of the current attempt */
                                runId: number | null;
                                /** @description the message its agent's turn answers */
                                messageId: string | null;
                                eventCount: number | null;
                                /** @description some events did not fit the turn; the model was told how many and given memory_search */
                                truncated: boolean;
                                error: string | null;
                                /** @description the `summary` event written when it completed */
                                summaryEventId: number | null;
                                createdAt: string;
                                completedAt: string | null;
                            } | null;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWatcherWindows: {
        parameters: {
            query?: {
                /** @description the `nextCursor` of the previous page */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        windows: {
                            id: number;
                            /** @description events that arrived (were received by svc) from here… */
                            windowStart: string;
                            /** @description …up to here, not included */
                            windowEnd: string;
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed";
                            attempts: number;
                            /** @description when a failed window is tried again */
                            retryAt: string | null;
                            /** @description the `watcher` run of the current attempt */
                            runId: number | null;
                            /** @description the message its agent's turn answers */
                            messageId: string | null;
                            eventCount: number | null;
                            /** @description some events did not fit the turn; the model was told how many and given memory_search */
                            truncated: boolean;
                            error: string | null;
                            /** @description the `summary` event written when it completed */
                            summaryEventId: number | null;
                            createdAt: string;
                            completedAt: string | null;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getWatcherWindow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                slug: string;
                windowId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        window: {
                            id: number;
                            /** @description events that arrived (were received by svc) from here… */
                            windowStart: string;
                            /** @description …up to here, not included */
                            windowEnd: string;
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed";
                            attempts: number;
                            /** @description when a failed window is tried again */
                            retryAt: string | null;
                            /** @description the `watcher` run of the current attempt */
                            runId: number | null;
                            /** @description the message its agent's turn answers */
                            messageId: string | null;
                            eventCount: number | null;
                            /** @description some events did not fit the turn; the model was told how many and given memory_search */
                            truncated: boolean;
                            error: string | null;
                            /** @description the `summary` event written when it completed */
                            summaryEventId: number | null;
                            createdAt: string;
                            completedAt: string | null;
                            reply: string | null;
                            extractedData: {
                                [key: string]: unknown;
                            } | null;
                            /** @description the events given to the model */
                            eventIds: number[];
                            conversationId: string | null;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    runWatcher: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        window: {
                            id: number;
                            /** @description events that arrived (were received by svc) from here… */
                            windowStart: string;
                            /** @description …up to here, not included */
                            windowEnd: string;
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed";
                            attempts: number;
                            /** @description when a failed window is tried again */
                            retryAt: string | null;
                            /** @description the `watcher` run of the current attempt */
                            runId: number | null;
                            /** @description the message its agent's turn answers */
                            messageId: string | null;
                            eventCount: number | null;
                            /** @description some events did not fit the turn; the model was told how many and given memory_search */
                            truncated: boolean;
                            error: string | null;
                            /** @description the `summary` event written when it completed */
                            summaryEventId: number | null;
                            createdAt: string;
                            completedAt: string | null;
                        };
                        /** @enum {boolean} */
                        created: false;
                    };
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        window: {
                            id: number;
                            /** @description events that arrived (were received by svc) from here… */
                            windowStart: string;
                            /** @description …up to here, not included */
                            windowEnd: string;
                            /** @enum {string} */
                            status: "pending" | "running" | "completed" | "failed";
                            attempts: number;
                            /** @description when a failed window is tried again */
                            retryAt: string | null;
                            /** @description the `watcher` run of the current attempt */
                            runId: number | null;
                            /** @description the message its agent's turn answers */
                            messageId: string | null;
                            eventCount: number | null;
                            /** @description some events did not fit the turn; the model was told how many and given memory_search */
                            truncated: boolean;
                            error: string | null;
                            /** @description the `summary` event written when it completed */
                            summaryEventId: number | null;
                            createdAt: string;
                            completedAt: string | null;
                        };
                        /** @enum {boolean} */
                        created: true;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The watcher is paused: resume it first */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listRelationships: {
        parameters: {
            query?: {
                /** @description the `nextCursor` of the previous page */
                cursor?: string;
                limit?: number;
                /** @description an entity's relationships, whether it is their source or their target */
                entityId?: number;
                /** @description a relationship type slug */
                type?: string;
            };
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        relationships: {
                            id: number;
                            /** @description the relationship type slug */
                            type: string;
                            sourceEntityId: number;
                            targetEntityId: number;
                            metadata: {
                                [key: string]: unknown;
                            };
                            createdAt: string;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createRelationship: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "works_at",
                 *       "sourceEntityId": 1,
                 *       "targetEntityId": 2
                 *     }
                 */
                "application/json": {
                    /** @description a relationship type slug (manage_entity_schema) */
                    type: string;
                    sourceEntityId: number;
                    targetEntityId: number;
                    /** @description checked against the type's metadata_schema; absent is {} */
                    metadata?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "created" | "updated" | "unchanged";
                        relationship: {
                            id: number;
                            /** @description the relationship type slug */
                            type: string;
                            sourceEntityId: number;
                            targetEntityId: number;
                            metadata: {
                                [key: string]: unknown;
                            };
                            createdAt: string;
                        };
                    };
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "created" | "updated" | "unchanged";
                        relationship: {
                            id: number;
                            /** @description the relationship type slug */
                            type: string;
                            sourceEntityId: number;
                            targetEntityId: number;
                            metadata: {
                                [key: string]: unknown;
                            };
                            createdAt: string;
                        };
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unknown_relationship_type`, `relationship_not_allowed` (the entity types are not allowed by the type's rules) or `invalid_metadata` */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteRelationship: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description org slug */
                org: string;
                relationshipId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        result: "deleted";
                        id: number;
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not `application/json` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    searchEvents: {
        parameters: {
            query?: {
                q?: string;
                limit?: number;
                since?: string;
                until?: string;
                /** @description received by svc at or after (a watcher window) */
                arrivedSince?: string;
                /** @description received by svc before */
                arrivedUntil?: string;
                connectionId?: number;
                feedId?: number;
                kind?: string;
                entityId?: number;
            };
            header?: never;
            path: {
                /** @description org slug */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        mode: "text" | "hybrid";
                        modeNote: string;
                        /**
                         * @description `all`: every event of the org that passes the filters was searched; `newest`: only its newest 5,000, the words being too common among older events to search them quickly (add words, a time range or an entity to reach those)
                         * @enum {string}
                         */
                        coverage: "all" | "newest";
                        hits: {
                            eventId: number;
                            title: string | null;
                            sourceUrl: string | null;
                            occurredAt: string;
                            /** @description a short passage of the body around the words found, between « and » */
                            snippet: string;
                            /** @description null for events no connector wrote (saved by an agent, a watcher) */
                            connectionId: number | null;
                            /** @description ts_rank_cd: a title match weighs more than a body match */
                            rank: number;
                        }[];
                    };
                };
            };
            /** @description The request is not valid */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The credentials lack the needed scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource in this org */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A segment of the path is longer than 1000 characters */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `q` has no words to search for (`search_query_empty`) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many failed authentications from this address; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request line and headers are larger than 16 KiB */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The server failed; the error is in its log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable, or this server is shutting down; retry shortly */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}
