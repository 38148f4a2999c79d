import { normalizeUrl } from './client.js';
import { type Credentials, credentialsPath, readCredentials } from './credentials.js';

export interface Session {
  url: string;
  token: string;
  org: string;
  /** The context it came from, or null when the environment supplied the token. */
  context: string | null;
}

export class NotLoggedInError extends Error {
  constructor() {
    super(
      'not logged in: run "svc login" (or "svc login --token <API_TOKEN>" in CI), or set SVC_API_TOKEN and SVC_URL',
    );
    this.name = 'NotLoggedInError';
  }
}

/**
 * The session a command uses: flags win over `SVC_API_TOKEN`, `SVC_URL` and `SVC_ORG`, which win
 * over the current (or named) context of the credentials file.
 */
export async function resolveSession(
  env: Record<string, string | undefined>,
  flags: { url?: string; org?: string; context?: string } = {},
): Promise<Session> {
  const credentials: Credentials = await readCredentials(credentialsPath(env));
  const name = flags.context ?? credentials.current;
  const stored = name ? credentials.contexts[name] : undefined;
  if (flags.context && !stored) {
    throw new Error(
      `no context "${flags.context}"; known: ${Object.keys(credentials.contexts).join(', ') || 'none'}`,
    );
  }
  const token = env.SVC_API_TOKEN || stored?.token;
  const url = flags.url || env.SVC_URL || stored?.url;
  if (!token || !url) throw new NotLoggedInError();
  // A saved token belongs to its server: sending it to another URL would hand it to whoever runs that.
  if (!env.SVC_API_TOKEN && stored && normalizeUrl(url) !== normalizeUrl(stored.url)) {
    throw new Error(
      `the saved context "${name}" is for ${stored.url}, not ${url}; its token is only sent there. ` +
        `Run "svc login --url ${url}" for that server, or set SVC_API_TOKEN`,
    );
  }
  return {
    url,
    token,
    org: flags.org || env.SVC_ORG || stored?.org || 'default',
    context: env.SVC_API_TOKEN ? null : (name ?? null),
  };
}
