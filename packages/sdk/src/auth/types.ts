/** The spec's "Connector auth schema" and "Interactive auth types". */

export type AuthScope = 'connection' | 'organization';

export interface ConnectorAuthSchema {
  methods: ConnectorAuthMethod[];
}

export type ConnectorAuthMethod =
  | NoneAuthMethod
  | EnvKeysAuthMethod
  | OAuthAuthMethod
  | BrowserAuthMethod
  | InteractiveAuthMethod;

export const AUTH_METHOD_TYPES = ['none', 'env_keys', 'oauth', 'browser', 'interactive'] as const;
export type AuthMethodType = ConnectorAuthMethod['type'];

export interface NoneAuthMethod {
  type: 'none';
}

/** Values the user enters arrive merged into `ctx.config` under each field's `key`. */
export interface EnvKeysAuthMethod {
  type: 'env_keys';
  required?: boolean;
  scope?: AuthScope;
  fields: ConnectorAuthEnvField[];
  description?: string;
}

export interface ConnectorAuthEnvField {
  key: string;
  label?: string;
  description?: string;
  example?: string;
  /** A secret is stored encrypted and never shown again. */
  secret?: boolean;
  required?: boolean;
}

/** The resolved token arrives on `ctx.credentials`. */
export interface OAuthAuthMethod {
  type: 'oauth';
  provider: string;
  requiredScopes: string[];
  optionalScopes?: string[];
  required?: boolean;
  description?: string;
  scope?: AuthScope;
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
}

/** Captured cookies arrive on `ctx.sessionState`. */
export interface BrowserAuthMethod {
  type: 'browser';
  required?: boolean;
  description?: string;
  /** `cli`: captured through `svc memory browser-auth`; `cdp`: through remote debugging. */
  capture?: 'cli' | 'cdp';
  requiredDomains?: string[];
  /** Default `http://127.0.0.1:9222`. */
  defaultCdpUrl?: string;
}

/** The connector's `authenticate(ctx)` streams artifacts (a QR code, a prompt...) and awaits signals. */
export interface InteractiveAuthMethod {
  type: 'interactive';
  required?: boolean;
  description?: string;
  scope?: AuthScope;
  expectedArtifact?: AuthArtifact['type'];
  /** Default 300; enforced by the server. */
  timeoutSec?: number;
}

export interface AuthContext {
  config: Record<string, unknown>;
  previousCredentials: Record<string, unknown> | null;
  /** Replaces the artifact shown to the user. */
  emit(artifact: AuthArtifact): Promise<void>;
  /** Resolves with what the UI posted under `name`; rejects after `timeoutMs` or when aborted. */
  awaitSignal(name: string, options?: { timeoutMs?: number }): Promise<Record<string, unknown>>;
  signal: AbortSignal;
}

export type AuthArtifact = QrArtifact | CodeArtifact | RedirectArtifact | PromptArtifact | StatusArtifact;

export interface QrArtifact {
  type: 'qr';
  value: string;
  expiresAt?: string;
  instructions?: string;
}

export interface CodeArtifact {
  type: 'code';
  value: string;
  expiresAt?: string;
  instructions?: string;
}

export interface RedirectArtifact {
  type: 'redirect';
  url: string;
  mode: 'popup' | 'same-tab';
  /** The signal name the redirect's landing page posts back. */
  awaitSignal: string;
  instructions?: string;
}

export interface PromptArtifact {
  type: 'prompt';
  fields: PromptField[];
  submitSignal: string;
  instructions?: string;
}

export interface PromptField {
  key: string;
  label: string;
  kind: 'text' | 'password' | 'otp';
  required?: boolean;
}

export interface StatusArtifact {
  type: 'status';
  message: string;
}

export interface AuthResult {
  credentials: Record<string, unknown>;
  metadata?: {
    account_id?: string;
    display_name?: string;
    expires_at?: string;
    [key: string]: unknown;
  };
}
