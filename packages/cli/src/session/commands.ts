import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient, normalizeUrl } from './client.js';
import { credentialsPath, readCredentials, updateCredentials } from './credentials.js';
import { orgRefusal, whoAmI } from './org.js';
import { resolveSession } from './resolve.js';

export interface Io {
  env: Record<string, string | undefined>;
  out: (line: string) => void;
  interactive: boolean;
  /** Asks for a value; `secret` hides what is typed. Only called when `interactive`. */
  ask: (question: string, options: { secret?: boolean; initial?: string }) => Promise<string>;
}

export const DEFAULT_URL = 'http://127.0.0.1:8787';

/** Contexts are named after the server they reach, so two servers never share one by accident. */
export function contextName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
}

function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`"${url}" is not a URL; give the server's address, e.g. ${DEFAULT_URL}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`"${url}" must start with http:// or https://`);
  }
  return url.replace(/\/+$/, '');
}

export async function login(
  flags: { token?: string; url?: string; org?: string; context?: string },
  io: Io,
): Promise<void> {
  if (!flags.token && !io.interactive) {
    throw new Error('no terminal to ask for a token: use "svc login --token <API_TOKEN> [--url <url>]"');
  }
  const url = checkUrl(
    flags.url ??
      io.env.SVC_URL ??
      (io.interactive && !flags.token ? await io.ask('Server URL', { initial: DEFAULT_URL }) : DEFAULT_URL),
  );
  const token = flags.token ?? (await io.ask('API token', { secret: true }));
  const client = createClient(url, token);
  const who = await whoAmI(client);
  const org = flags.org ?? who.org ?? 'default';
  const refusal = await orgRefusal(client, who, org);
  if (refusal) throw new Error(`${refusal}; nothing was saved`);
  const name = flags.context ?? contextName(url);
  const path = credentialsPath(io.env);
  await updateCredentials(path, (credentials) => {
    credentials.contexts[name] = { url, token, org };
    credentials.current = name;
  });
  const as = who.token ? `token "${who.token.name}"` : 'the admin password';
  io.out(`Logged in to ${url} with ${as}: org ${org}, scopes ${who.scopes.join(', ')}.`);
  io.out(`Saved as context "${name}" in ${path}.`);
}

export async function logout(flags: { context?: string }, io: Io): Promise<void> {
  const path = credentialsPath(io.env);
  const credentials = await readCredentials(path);
  const name = flags.context ?? credentials.current;
  if (!name || !credentials.contexts[name]) {
    io.out(flags.context ? `No context "${flags.context}": nothing to do.` : 'Not logged in: nothing to do.');
    return;
  }
  await updateCredentials(path, (latest) => {
    delete latest.contexts[name];
    if (latest.current === name) latest.current = Object.keys(latest.contexts)[0] ?? null;
  });
  io.out(`Logged out of context "${name}".`);
}

export async function whoami(flags: { url?: string; org?: string; context?: string }, io: Io): Promise<void> {
  const session = await resolveSession(io.env, flags);
  const client = createClient(session.url, session.token);
  const who = await whoAmI(client);
  // The org the token has, never one the flags, SVC_ORG or an old context merely name.
  const refusal = await orgRefusal(client, who, session.org);
  io.out(`server   ${session.url}`);
  io.out(`context  ${session.context ?? '(SVC_API_TOKEN)'}`);
  if (who.org !== null || !refusal) io.out(`org      ${who.org ?? session.org}`);
  io.out(`as       ${who.token ? `token "${who.token.name}" (${who.token.id})` : 'the admin password'}`);
  io.out(`scopes   ${who.scopes.join(', ')}`);
  if (refusal) throw new Error(refusal);
}

export interface ProjectLink {
  context: string;
  org: string;
  /** The server the context pointed at: a `--url` elsewhere must not reuse the context's token. */
  url?: string;
}

export const linkPath = (dir: string) => join(dir, '.svc', 'project.json');

export async function readLink(dir: string): Promise<ProjectLink | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(linkPath(dir), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`${linkPath(dir)} is not valid JSON; fix it, or run "svc link" again`);
  }
  // A file that is there but says nothing usable must not switch the guard off.
  const link = parsed as Partial<ProjectLink> | null;
  if (typeof link?.context !== 'string' || typeof link.org !== 'string') {
    throw new Error(`${linkPath(dir)} has no "context" and "org"; run "svc link" again, or delete it`);
  }
  return link as ProjectLink;
}

/** `svc link`: ties the project to a (context, org) so that `svc apply` elsewhere is refused. */
export async function link(dir: string, flags: { org?: string; context?: string }, io: Io): Promise<void> {
  const session = await resolveSession(io.env, flags);
  if (!session.context) {
    throw new Error(
      io.env.SVC_API_TOKEN
        ? 'link records a saved context, and SVC_API_TOKEN overrides them: unset it, or run "svc login" first'
        : 'link needs a saved context: run "svc login" first',
    );
  }
  const value: ProjectLink = { context: session.context, org: session.org, url: session.url };
  await mkdir(join(dir, '.svc'), { recursive: true });
  await writeFile(linkPath(dir), `${JSON.stringify(value, null, 2)}\n`);
  io.out(`Linked ${dir} to context "${value.context}", org "${value.org}".`);
}

/** The link guard of `svc apply`: a project linked to another (context, org) is refused unless forced. */
export async function checkLink(
  dir: string,
  target: { context: string | null; org: string; url?: string },
  force: boolean,
) {
  const linked = await readLink(dir);
  if (!linked || force) return;
  if (linked.url && target.url && normalizeUrl(linked.url) !== normalizeUrl(target.url)) {
    throw new Error(
      `this project is linked to the server ${linked.url}, but the session points at ${target.url}; use --force to apply anyway, or "svc link" to re-link`,
    );
  }
  // With SVC_API_TOKEN (CI) there is no context: the same server and org is the same target.
  const sameContext =
    target.context === null ? Boolean(linked.url && target.url) : linked.context === target.context;
  if (!sameContext || linked.org !== target.org) {
    throw new Error(
      `this project is linked to (context "${linked.context}", org "${linked.org}") but the session is ` +
        `(context "${target.context ?? 'SVC_API_TOKEN'}", org "${target.org}"); use --force to apply anyway, or "svc link" to re-link`,
    );
  }
}
