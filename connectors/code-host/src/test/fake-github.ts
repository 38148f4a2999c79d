/**
 * A fake GitHub REST API on 127.0.0.1, speaking the protocol for what the connector uses: bearer
 * tokens (401 otherwise), issues and pulls listings with `state`, `sort`, `direction`, `since`,
 * `per_page`, `page` and a real `Link` header, creating issues and adding labels. Items live in one
 * list, as on GitHub, where a pull request is also an issue and numbers are shared.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeUser {
  login: string;
  id: number;
}

export interface FakeItem {
  number: number;
  kind: 'issue' | 'pull';
  title: string;
  body: string | null;
  user: FakeUser;
  state: 'open' | 'closed';
  labels: string[];
  comments: number;
  reactions: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  merged_at: string | null;
  draft: boolean;
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

export interface FakeGitHub {
  url: string;
  repo: string;
  token: string;
  items: FakeItem[];
  requests: SeenRequest[];
  /** The next `times` requests get this answer instead of their own. */
  failNext(reply: Reply, times?: number): void;
  /** Called after each listing page is served: to change data between pages, as other users do. */
  afterListing?: (page: number) => void;
  addIssue(fields?: Partial<FakeItem>): FakeItem;
  addPull(fields?: Partial<FakeItem>): FakeItem;
  /** Sets `updated_at` (default: one second after the newest), as any edit does. */
  touch(number: number, at?: string): FakeItem;
  close(): Promise<void>;
}

export const OCTOCAT: FakeUser = { login: 'Octocat', id: 583231 };
const VIEWER: FakeUser = { login: 'svc-bot', id: 4242 };
const T0 = Date.parse('2026-01-05T10:00:00Z');

/** Second-precision ISO, as GitHub writes it. */
export const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `relativeLinks`: write Link targets as `?page=N` (RFC 8288 allows references relative to the page). */
export async function startFakeGitHub(
  options: { repo?: string; token?: string; relativeLinks?: boolean } = {},
): Promise<FakeGitHub> {
  const repo = options.repo ?? 'octo/hello-world';
  const token = options.token ?? 'gho_fake_token_5d1c';
  const failures: Reply[] = [];

  const newest = () => Math.max(T0, ...fake.items.map((i) => Date.parse(i.updated_at)));
  const add = (kind: FakeItem['kind'], fields: Partial<FakeItem>): FakeItem => {
    const at = iso(newest() + 1000);
    const item: FakeItem = {
      number: fake.items.length + 1,
      kind,
      title: `${kind} ${fake.items.length + 1}`,
      body: `Body of ${kind} ${fake.items.length + 1}`,
      user: OCTOCAT,
      state: 'open',
      labels: [],
      comments: 0,
      reactions: 0,
      created_at: at,
      updated_at: at,
      closed_at: null,
      merged_at: null,
      draft: false,
      ...fields,
    };
    fake.items.push(item);
    return item;
  };

  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      fake.requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body });
      const failure = failures.shift();
      const reply = failure ?? route(req, body);
      send(res, reply);
    });
  });

  function route(req: IncomingMessage, body: string): Reply {
    if (req.headers.authorization !== `Bearer ${token}`) {
      return {
        status: 401,
        body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' },
      };
    }
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const match = url.pathname.match(/^\/repos\/([^/]+\/[^/]+)\/(issues|pulls)(?:\/(\d+)\/(labels))?$/);
    if (!match || match[1]?.toLowerCase() !== repo.toLowerCase()) return notFound();
    const [, , collection, number, sub] = match;
    if (req.method === 'GET' && !number) return list(url, collection === 'pulls');
    if (req.method === 'POST' && collection === 'issues' && !number) return create(body);
    if (req.method === 'POST' && sub === 'labels') return addLabels(Number(number), body);
    return notFound();
  }

  function list(url: URL, pulls: boolean): Reply {
    const q = url.searchParams;
    const state = q.get('state') ?? 'open';
    const since = q.get('since');
    const perPage = Math.min(Number(q.get('per_page') ?? 30), 100);
    const page = Number(q.get('page') ?? 1);
    const key = q.get('sort') === 'updated' ? 'updated_at' : 'created_at';
    const sign = (q.get('direction') ?? 'desc') === 'asc' ? 1 : -1;
    const matching = fake.items
      .filter((i) => !pulls || i.kind === 'pull')
      .filter((i) => state === 'all' || i.state === state)
      // GitHub: "only show results that were last updated after the given time"; its own second included.
      .filter((i) => !since || pulls || Date.parse(i.updated_at) >= Date.parse(since))
      .sort((a, b) => sign * (Date.parse(a[key]) - Date.parse(b[key])) || a.number - b.number);
    const slice = matching.slice((page - 1) * perPage, page * perPage);
    const last = Math.max(1, Math.ceil(matching.length / perPage));
    const link = (p: number, rel: string) => {
      const target = new URL(url);
      target.searchParams.set('page', String(p));
      return `<${options.relativeLinks ? target.search : target.href}>; rel="${rel}"`;
    };
    const links = [
      ...(page < last ? [link(page + 1, 'next'), link(last, 'last')] : []),
      ...(page > 1 ? [link(1, 'first'), link(page - 1, 'prev')] : []),
    ];
    const reply: Reply = {
      status: 200,
      body: slice.map((i) => (pulls ? asPull(i) : asIssue(i))),
      headers: links.length > 0 ? { link: links.join(', ') } : {},
    };
    queueMicrotask(() => fake.afterListing?.(page));
    return reply;
  }

  function create(body: string): Reply {
    const input = JSON.parse(body || '{}') as { title?: unknown; body?: string; labels?: string[] };
    if (typeof input.title !== 'string' || input.title === '') {
      return {
        status: 422,
        body: {
          message: 'Validation Failed',
          errors: [{ resource: 'Issue', code: 'missing_field', field: 'title' }],
        },
      };
    }
    const item = add('issue', {
      title: input.title,
      body: input.body ?? null,
      labels: input.labels ?? [],
      user: VIEWER,
    });
    return { status: 201, body: asIssue(item) };
  }

  function addLabels(number: number, body: string): Reply {
    const item = fake.items.find((i) => i.number === number);
    if (!item) return notFound();
    const parsed = JSON.parse(body || '{}') as { labels?: string[] } | string[];
    const labels = Array.isArray(parsed) ? parsed : (parsed.labels ?? []);
    for (const label of labels) if (!item.labels.includes(label)) item.labels.push(label);
    item.updated_at = iso(newest() + 1000);
    return { status: 200, body: item.labels.map(labelOf) };
  }

  const base = () => `https://github.com/${repo}`;
  const userOf = (u: FakeUser) => ({
    login: u.login,
    id: u.id,
    node_id: Buffer.from(`04:User${u.id}`).toString('base64'),
    avatar_url: `https://avatars.githubusercontent.com/u/${u.id}?v=4`,
    html_url: `https://github.com/${u.login}`,
    type: 'User',
  });
  const labelOf = (name: string) => ({ id: name.length, name, color: 'ededed', default: false });

  function asIssue(i: FakeItem) {
    return {
      id: 1_000_000 + i.number,
      node_id: `I_kwDO${i.number}`,
      url: `${fake.url}/repos/${repo}/issues/${i.number}`,
      html_url: `${base()}/${i.kind === 'pull' ? 'pull' : 'issues'}/${i.number}`,
      number: i.number,
      state: i.state,
      title: i.title,
      body: i.body,
      user: userOf(i.user),
      labels: i.labels.map(labelOf),
      comments: i.comments,
      created_at: i.created_at,
      updated_at: i.updated_at,
      closed_at: i.closed_at,
      author_association: 'OWNER',
      reactions: { url: `${fake.url}/repos/${repo}/issues/${i.number}/reactions`, total_count: i.reactions },
      ...(i.kind === 'pull'
        ? { pull_request: { url: `${fake.url}/repos/${repo}/pulls/${i.number}`, merged_at: i.merged_at } }
        : {}),
    };
  }

  // The pull request listing ("pull-request-simple") carries no comment or reaction counts.
  function asPull(i: FakeItem) {
    return {
      id: 2_000_000 + i.number,
      node_id: `PR_kwDO${i.number}`,
      html_url: `${base()}/pull/${i.number}`,
      number: i.number,
      state: i.state,
      title: i.title,
      body: i.body,
      user: userOf(i.user),
      labels: i.labels.map(labelOf),
      created_at: i.created_at,
      updated_at: i.updated_at,
      closed_at: i.closed_at,
      merged_at: i.merged_at,
      draft: i.draft,
      author_association: 'OWNER',
      head: { ref: `feature-${i.number}` },
      base: { ref: 'main' },
    };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeGitHub = {
    url: `http://127.0.0.1:${port}`,
    repo,
    token,
    items: [],
    requests: [],
    failNext: (reply, times = 1) => {
      for (let n = 0; n < times; n++) failures.push(reply);
    },
    addIssue: (fields = {}) => add('issue', fields),
    addPull: (fields = {}) => add('pull', fields),
    touch: (number, at) => {
      const item = fake.items.find((i) => i.number === number);
      if (!item) throw new Error(`no item #${number}`);
      item.updated_at = at ?? iso(newest() + 1000);
      return item;
    },
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return fake;
}

const notFound = (): Reply => ({
  status: 404,
  body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' },
});

function send(res: ServerResponse, reply: Reply): void {
  const text = reply.body === undefined ? '' : JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': '4999',
    ...reply.headers,
  });
  res.end(text);
}
