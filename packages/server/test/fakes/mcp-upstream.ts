/**
 * An MCP server over streamable HTTP (the MCP SDK's own server, stateless) on 127.0.0.1, as the
 * upstream of a connector without code: `search` (read-only, open world, idempotent) and
 * `delete_item` (destructive). Which requests it takes is the test's word (`authorized`): it
 * answers 401 to the others, before the MCP server sees them. Every request's JSON-RPC method is
 * recorded with its headers, and each tool call with its input; a tool can be taken away
 * (`offered`) to see it stop being an action.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export type UpstreamTool = 'search' | 'delete_item';

export interface FakeMcpUpstream {
  url: string;
  /** The tools it offers now: one taken out is neither listed nor callable. */
  offered: Set<UpstreamTool>;
  /** Every request it took (past `authorized`): its JSON-RPC method(s) and headers. */
  requests: { methods: string[]; headers: IncomingHttpHeaders }[];
  /** Requests it answered 401. */
  refused: { methods: string[]; headers: IncomingHttpHeaders }[];
  /** Each tool call, with the headers of the request that carried it. */
  calls: { tool: UpstreamTool; input: Record<string, unknown>; headers: IncomingHttpHeaders }[];
  /** Set: the server is down, and answers this status to everything. */
  down: number | null;
  close(): Promise<void>;
}

export interface FakeMcpUpstreamOptions {
  /** Whether a request with these headers, for these JSON-RPC methods, is let through; default all. */
  authorized?: (headers: IncomingHttpHeaders, methods: string[]) => boolean;
}

export async function startFakeMcpUpstream(options: FakeMcpUpstreamOptions = {}): Promise<FakeMcpUpstream> {
  const fake: FakeMcpUpstream = {
    url: '',
    offered: new Set(['search', 'delete_item']),
    requests: [],
    refused: [],
    calls: [],
    down: null,
    close: async () => {},
  };
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const methods = (Array.isArray(body) ? body : [body])
      .map((message) => (message as { method?: unknown } | undefined)?.method)
      .filter((method): method is string => typeof method === 'string');
    if (fake.down !== null) {
      res.writeHead(fake.down, { 'content-type': 'text/plain' });
      res.end('down for maintenance');
      return;
    }
    if (options.authorized && !options.authorized(req.headers, methods)) {
      fake.refused.push({ methods, headers: req.headers });
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    fake.requests.push({ methods, headers: req.headers });
    const server = new McpServer({ name: 'fake-upstream', version: '1.0.0' });
    if (fake.offered.has('search')) {
      server.registerTool(
        'search',
        {
          title: 'Search the catalogue',
          description: 'Finds items by a word',
          inputSchema: { query: z.string() },
          annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
        },
        async ({ query }) => {
          fake.calls.push({ tool: 'search', input: { query }, headers: req.headers });
          return {
            content: [{ type: 'text', text: `2 items match ${query}` }],
            structuredContent: { hits: [`${query}-1`, `${query}-2`] },
          };
        },
      );
    }
    if (fake.offered.has('delete_item')) {
      server.registerTool(
        'delete_item',
        {
          description: 'Deletes an item for good',
          inputSchema: { id: z.string() },
          annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
        },
        async ({ id }) => {
          fake.calls.push({ tool: 'delete_item', input: { id }, headers: req.headers });
          return { content: [{ type: 'text', text: `deleted ${id}` }] };
        },
      );
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return fake;
}
