import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll } from 'vitest';
import { z } from 'zod';

export interface FakeMcpHttp {
  url: string;
  /** Each tool call, with the headers of the request that carried it. */
  calls: { tool: string; input: unknown; headers: IncomingHttpHeaders }[];
}

/**
 * A real MCP server over streamable HTTP (the MCP SDK's own server), stateless, on 127.0.0.1:
 * `add` (read-only), `lookup` (read-only) and `wipe` (destructive: it needs an approval).
 */
export async function startFakeMcpHttp(): Promise<FakeMcpHttp> {
  const fake: FakeMcpHttp = { url: '', calls: [] };
  const http = createServer(async (req, res) => {
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
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));
  fake.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return fake;
}
