/**
 * The exported types against the spec, field for field and optionality for optionality. These are
 * checked by the compiler (`npm run lint` runs tsc over tests); the runtime part only proves the
 * file is loaded. A field renamed, added, dropped or made optional fails here.
 */

import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type {
  ActionContext,
  ActionDefinition,
  ActionResult,
  ApprovalStatus,
  AuthArtifact,
  AuthContext,
  AuthResult,
  Connection,
  ConnectionStatus,
  ConnectorAuthEnvField,
  ConnectorAuthMethod,
  ConnectorAuthSchema,
  ConnectorDefinition,
  ConnectorRuntimeInfo,
  EntityIdentitySpec,
  EntityLinkOverride,
  EntityLinkOverrides,
  EntityLinkRule,
  EntityTraitSpec,
  EventEnvelope,
  Feed,
  FeedDefinition,
  FeedMode,
  FeedStatus,
  JsonSchema,
  Run,
  RunStatus,
  RunType,
  SyncContext,
  SyncCredentials,
  SyncResult,
} from './index.js';
import {
  type actionResultSchema,
  type authArtifactSchema,
  type authResultSchema,
  type eventEnvelopeSchema,
  IDENTITY,
  type syncCredentialsSchema,
  type syncResultSchema,
} from './index.js';

type Obj = Record<string, unknown>;

describe('types are the spec, exactly', () => {
  it('ConnectorDefinition and ConnectorRuntimeInfo', () => {
    expectTypeOf<ConnectorDefinition>().toEqualTypeOf<{
      key: string;
      name: string;
      description?: string;
      version: string;
      authSchema?: ConnectorAuthSchema;
      feeds?: Record<string, FeedDefinition>;
      actions?: Record<string, ActionDefinition>;
      optionsSchema?: JsonSchema;
      faviconDomain?: string;
      // svc's additions (issue 22): headers carrying env_keys fields; the description inline.
      mcpConfig?: { upstreamUrl: string; headers?: Record<string, string> };
      openapiConfig?: {
        specUrl?: string;
        spec?: string | Record<string, unknown>;
        includeOperations?: string[];
        excludeOperations?: string[];
        includeTags?: string[];
        serverUrl?: string;
      };
      requiredCapability?: string;
      runtime?: ConnectorRuntimeInfo;
    }>();
    expectTypeOf<ConnectorRuntimeInfo>().toEqualTypeOf<{
      platforms: ('ios' | 'android' | 'macos' | 'windows' | 'linux')[];
      scopes?: string[];
      nix?: { packages?: string[] };
    }>();
  });

  it('ConnectorAuthSchema and its five methods', () => {
    type Scope = 'connection' | 'organization';
    expectTypeOf<ConnectorAuthSchema>().toEqualTypeOf<{ methods: ConnectorAuthMethod[] }>();
    expectTypeOf<ConnectorAuthMethod['type']>().toEqualTypeOf<
      'none' | 'env_keys' | 'oauth' | 'browser' | 'interactive'
    >();
    expectTypeOf<Extract<ConnectorAuthMethod, { type: 'none' }>>().toEqualTypeOf<{ type: 'none' }>();
    expectTypeOf<Extract<ConnectorAuthMethod, { type: 'env_keys' }>>().toEqualTypeOf<{
      type: 'env_keys';
      required?: boolean;
      scope?: Scope;
      fields: ConnectorAuthEnvField[];
      description?: string;
    }>();
    expectTypeOf<Extract<ConnectorAuthMethod, { type: 'oauth' }>>().toEqualTypeOf<{
      type: 'oauth';
      provider: string;
      requiredScopes: string[];
      optionalScopes?: string[];
      required?: boolean;
      description?: string;
      scope?: Scope;
      authorizationUrl?: string;
      tokenUrl?: string;
      userinfoUrl?: string;
      authParams?: Record<string, string>;
      tokenEndpointAuthMethod?: 'client_secret_post' | 'client_secret_basic' | 'none';
      usePkce?: boolean;
      loginScopes?: string[];
      clientIdKey?: string;
      clientSecretKey?: string;
      setupInstructions?: string;
      loginProvisioning?: { autoCreateConnection?: boolean };
    }>();
    expectTypeOf<Extract<ConnectorAuthMethod, { type: 'browser' }>>().toEqualTypeOf<{
      type: 'browser';
      required?: boolean;
      description?: string;
      capture?: 'cli' | 'cdp';
      requiredDomains?: string[];
      defaultCdpUrl?: string;
    }>();
    expectTypeOf<Extract<ConnectorAuthMethod, { type: 'interactive' }>>().toEqualTypeOf<{
      type: 'interactive';
      required?: boolean;
      description?: string;
      scope?: Scope;
      expectedArtifact?: 'qr' | 'code' | 'redirect' | 'prompt' | 'status';
      timeoutSec?: number;
    }>();
    expectTypeOf<ConnectorAuthEnvField>().toEqualTypeOf<{
      key: string;
      label?: string;
      description?: string;
      example?: string;
      secret?: boolean;
      required?: boolean;
    }>();
  });

  it('FeedDefinition, entity links and overrides, FeedMode, ActionDefinition', () => {
    expectTypeOf<FeedDefinition>().toEqualTypeOf<{
      key: string;
      name: string;
      description?: string;
      requiredScopes?: string[];
      displayNameTemplate?: string;
      configSchema?: JsonSchema;
      userManaged?: boolean;
      eventKinds?: Record<
        string,
        { description?: string; metadataSchema?: JsonSchema; entityLinks?: EntityLinkRule[] }
      >;
    }>();
    expectTypeOf<EntityLinkRule>().toEqualTypeOf<{
      entityType: string;
      autoCreate?: boolean;
      titlePath?: string;
      identities: EntityIdentitySpec[];
      traits?: Record<string, EntityTraitSpec>;
    }>();
    expectTypeOf<EntityIdentitySpec>().toEqualTypeOf<{
      namespace: string;
      eventPath: string;
      matchOnly?: boolean;
    }>();
    expectTypeOf<EntityTraitSpec>().toEqualTypeOf<{
      eventPath: string;
      behavior: 'init_only' | 'prefer_non_empty' | 'overwrite';
    }>();
    expectTypeOf<EntityLinkOverride>().toEqualTypeOf<{
      disable?: boolean;
      retargetEntityType?: string;
      autoCreate?: boolean;
      maskIdentities?: string[];
    }>();
    expectTypeOf<EntityLinkOverrides>().toEqualTypeOf<Record<string, EntityLinkOverride>>();
    expectTypeOf<FeedMode>().toEqualTypeOf<'sync' | 'virtual'>();
    expectTypeOf<ActionDefinition>().toEqualTypeOf<{
      key: string;
      name: string;
      requiresApproval: boolean;
      description?: string;
      annotations?: { destructiveHint?: boolean; openWorldHint?: boolean; idempotentHint?: boolean };
      inputSchema?: JsonSchema;
      outputSchema?: JsonSchema;
    }>();
  });

  it('IDENTITY', () => {
    expectTypeOf(IDENTITY).toEqualTypeOf<{
      readonly PHONE: 'phone';
      readonly EMAIL: 'email';
      readonly MESSAGING_JID: 'messaging_jid';
      readonly TEAM_CHAT_USER_ID: 'team_chat_user_id';
      readonly CODE_HOST_LOGIN: 'code_host_login';
      readonly CODE_HOST_USER_ID: 'code_host_user_id';
      readonly CODE_HOST_REPO_ID: 'code_host_repo_id';
      readonly CODE_HOST_REPO_FULL_NAME: 'code_host_repo_full_name';
      readonly AUTH_USER_ID: 'auth_user_id';
      readonly CONTACTS_CONTACT_ID: 'contacts_contact_id';
      // Lobu's names for the same namespaces, as aliases.
      readonly WA_JID: 'messaging_jid';
      readonly SLACK_USER_ID: 'team_chat_user_id';
      readonly GITHUB_LOGIN: 'code_host_login';
      readonly GITHUB_USER_ID: 'code_host_user_id';
      readonly GITHUB_REPO_ID: 'code_host_repo_id';
      readonly GITHUB_REPO_FULL_NAME: 'code_host_repo_full_name';
      readonly GOOGLE_CONTACT_ID: 'contacts_contact_id';
    }>();
  });

  it('contexts and results', () => {
    expectTypeOf<SyncContext>().toEqualTypeOf<{
      feedKey: string;
      config: Obj;
      checkpoint: Obj | null;
      credentials: SyncCredentials | null;
      entityIds: number[];
      sessionState?: Obj | null;
      emitEvents?: (events: EventEnvelope[]) => Promise<void>;
      updateCheckpoint?: (checkpoint: Obj | null) => Promise<void>;
      // svc's one addition, optional: how a cancel through the API reaches the connector.
      signal?: AbortSignal;
    }>();
    expectTypeOf<SyncCredentials>().toEqualTypeOf<{
      provider: string;
      accessToken: string;
      refreshToken?: string | null;
      expiresAt?: string | null;
      scope?: string | null;
    }>();
    expectTypeOf<SyncResult>().toEqualTypeOf<{
      events: EventEnvelope[];
      checkpoint: Obj | null;
      auth_update?: Obj | null;
      metadata?: { items_found?: number; items_skipped?: number; [key: string]: unknown };
    }>();
    expectTypeOf<ActionContext>().toEqualTypeOf<{
      actionKey: string;
      input: Obj;
      credentials: SyncCredentials | null;
      config: Obj;
      sessionState?: Obj | null;
      signal?: AbortSignal;
    }>();
    expectTypeOf<ActionResult>().toEqualTypeOf<{ success: boolean; output?: Obj; error?: string }>();
  });

  it('EventEnvelope, and its schema infers exactly it', () => {
    expectTypeOf<EventEnvelope>().toEqualTypeOf<{
      origin_id: string;
      origin_type?: string;
      payload_type?: 'text' | 'markdown' | 'json_template' | 'media' | 'empty';
      payload_text: string;
      payload_data?: Obj;
      payload_template?: Obj | null;
      attachments?: unknown[];
      title?: string;
      author_name?: string;
      source_url?: string;
      occurred_at: string | Date;
      semantic_type?: string;
      score?: number;
      origin_parent_id?: string;
      metadata?: Obj;
      embedding?: number[];
    }>();
    expectTypeOf<z.infer<typeof eventEnvelopeSchema>>().toEqualTypeOf<EventEnvelope>();
  });

  it('interactive auth', () => {
    expectTypeOf<AuthContext>().toEqualTypeOf<{
      config: Obj;
      previousCredentials: Obj | null;
      emit(artifact: AuthArtifact): Promise<void>;
      awaitSignal(name: string, options?: { timeoutMs?: number }): Promise<Obj>;
      signal: AbortSignal;
    }>();
    expectTypeOf<AuthArtifact>().toEqualTypeOf<
      | { type: 'qr'; value: string; expiresAt?: string; instructions?: string }
      | { type: 'code'; value: string; expiresAt?: string; instructions?: string }
      | {
          type: 'redirect';
          url: string;
          mode: 'popup' | 'same-tab';
          awaitSignal: string;
          instructions?: string;
        }
      | {
          type: 'prompt';
          fields: { key: string; label: string; kind: 'text' | 'password' | 'otp'; required?: boolean }[];
          submitSignal: string;
          instructions?: string;
        }
      | { type: 'status'; message: string }
    >();
    expectTypeOf<AuthResult>().toEqualTypeOf<{
      credentials: Obj;
      metadata?: { account_id?: string; display_name?: string; expires_at?: string; [key: string]: unknown };
    }>();
  });

  it('stored records and state sets', () => {
    expectTypeOf<ConnectionStatus>().toEqualTypeOf<'active' | 'paused' | 'error' | 'revoked'>();
    expectTypeOf<FeedStatus>().toEqualTypeOf<'active' | 'paused' | 'error'>();
    expectTypeOf<RunType>().toEqualTypeOf<'sync' | 'action' | 'code' | 'watcher' | 'auth'>();
    expectTypeOf<RunStatus>().toEqualTypeOf<
      'pending' | 'running' | 'completed' | 'failed' | 'cancelled' | 'timeout'
    >();
    expectTypeOf<ApprovalStatus>().toEqualTypeOf<'pending' | 'approved' | 'rejected' | 'auto'>();
    expectTypeOf<Connection>().toEqualTypeOf<{
      id: number;
      organizationId: string;
      connectorKey: string;
      displayName?: string;
      status: ConnectionStatus;
      accountId?: string;
      credentials?: Obj;
      entityIds?: number[];
      config?: Obj;
      errorMessage?: string;
      createdBy?: string;
      createdAt: Date;
      updatedAt: Date;
    }>();
    expectTypeOf<Feed>().toEqualTypeOf<{
      id: number;
      organizationId: string;
      connectionId: number;
      feedKey: string;
      status: FeedStatus;
      entityIds?: number[];
      config?: Obj;
      checkpoint?: Obj;
      syncIntervalMs?: number;
      nextSyncAt?: Date;
      lastSyncAt?: Date;
      lastSyncStatus?: string;
      lastError?: string;
      consecutiveFailures: number;
      itemsCollected: number;
      createdAt: Date;
      updatedAt: Date;
    }>();
    expectTypeOf<Run>().toEqualTypeOf<{
      id: number;
      organizationId: string;
      runType: RunType;
      feedId?: number;
      connectionId?: number;
      actionKey?: string;
      actionInput?: Obj;
      actionOutput?: Obj;
      approvalStatus: ApprovalStatus;
      status: RunStatus;
      claimedBy?: string;
      claimedAt?: Date;
      lastHeartbeatAt?: Date;
      completedAt?: Date;
      connectorKey?: string;
      connectorVersion?: string;
      checkpoint?: Obj;
      itemsCollected: number;
      errorMessage?: string;
      createdAt: Date;
    }>();
  });

  it('the schemas of what crosses a process boundary infer exactly the types', () => {
    expectTypeOf<z.infer<typeof syncResultSchema>>().toEqualTypeOf<SyncResult>();
    expectTypeOf<z.infer<typeof actionResultSchema>>().toEqualTypeOf<ActionResult>();
    expectTypeOf<z.infer<typeof syncCredentialsSchema>>().toEqualTypeOf<SyncCredentials>();
    expectTypeOf<z.infer<typeof authArtifactSchema>>().toEqualTypeOf<AuthArtifact>();
    expectTypeOf<z.infer<typeof authResultSchema>>().toEqualTypeOf<AuthResult>();
  });
});
