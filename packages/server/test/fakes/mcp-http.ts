import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll } from 'vitest';
import { z } from 'zod';

export interface FakeMcpHttp {
  url: string;
  /** Each tool call, with the headers of the request that carried it. */
  calls: { tool: string; input: unknown; headers: IncomingHttpHeaders }[];
  /** Token requests its authorization server answered (when started with `oauth`). */
  tokenRequests: { grantType: string | null; scope: string | null; clientId: string }[];
}

/**
 * With `oauth`, the server is a protected resource (RFC 9728) whose authorization server, on the
 * same origin, grants `client_credentials` to that client only (client_secret_basic): a call
 * without its token gets 401 and the `WWW-Authenticate` that leads a client to the token.
 */
interface FakeOAuth {
  clientId: string;
  clientSecret: string;
}

const ISSUED_TOKEN = 'fake-mcp-access-token';

/** The protected resource's and the authorization server's answers; false for any other path. */
function answerOAuth(
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  origin: string,
  oauth: FakeOAuth,
  fake: FakeMcpHttp,
): boolean {
  const json = (status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (req.url === '/.well-known/oauth-protected-resource/mcp') {
    json(200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
  } else if (req.url === '/.well-known/oauth-authorization-server') {
    json(200, {
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      response_types_supported: ['code'],
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
    });
  } else if (req.url === '/token' && req.method === 'POST') {
    const form = new URLSearchParams(body);
    const basic = Buffer.from(`${oauth.clientId}:${oauth.clientSecret}`).toString('base64');
    fake.tokenRequests.push({
      grantType: form.get('grant_type'),
      scope: form.get('scope'),
      clientId: oauth.clientId,
    });
    if (req.headers.authorization !== `Basic ${basic}` || form.get('grant_type') !== 'client_credentials') {
      json(401, { error: 'invalid_client' });
    } else {
      json(200, { access_token: ISSUED_TOKEN, token_type: 'Bearer', expires_in: 3600 });
    }
  } else if (req.headers.authorization !== `Bearer ${ISSUED_TOKEN}`) {
    res.writeHead(401, {
      'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    });
    res.end();
  } else {
    return false;
  }
  return true;
}

/**
 * A real MCP server over streamable HTTP (the MCP SDK's own server), stateless, on 127.0.0.1:
 * `add` (read-only), `lookup` (read-only) and `wipe` (destructive: it needs an approval).
 */
export async function startFakeMcpHttp(options: { oauth?: FakeOAuth } = {}): Promise<FakeMcpHttp> {
  const fake: FakeMcpHttp = { url: '', calls: [], tokenRequests: [] };
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    const origin = new URL(fake.url).origin;
    if (options.oauth && answerOAuth(req, res, text, origin, options.oauth, fake)) return;
    const server = new McpServer({ name: 'fake-tools', version: '1.0.0' });
    const record = (tool: string, input: unknown) => fake.calls.push({ tool, input, headers: req.headers });
    server.registerTool(
      'add',
      {
        description: 'Adds two numbers',
        inputSchema: { a: z.number(), b: z.number() },
        annotations: { readOnlyHint: true },
      },
      async ({ a, b }) => {
        record('add', { a, b });
        return { content: [{ type: 'text', text: String(a + b) }] };
      },
    );
    server.registerTool(
      'lookup',
      {
        description: 'Looks a word up',
        inputSchema: { word: z.string() },
        annotations: { readOnlyHint: true },
      },
      async ({ word }) => {
        record('lookup', { word });
        return { content: [{ type: 'text', text: `${word}: a word` }] };
      },
    );
    server.registerTool(
      'wipe',
      {
        description: 'Deletes a target for good',
        inputSchema: { target: z.string() },
        annotations: { destructiveHint: true },
      },
      async ({ target }) => {
        record('wipe', { target });
        return { content: [{ type: 'text', text: `wiped ${target}` }] };
      },
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));
  fake.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return fake;
}
