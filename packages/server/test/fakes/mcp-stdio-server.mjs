// A real MCP server over stdio (the MCP SDK's own), that tests run as an agent's `command` server.
// `whoami` answers from its environment: what svc passed it, and whether the server's secrets leaked.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'fake-stdio', version: '1.0.0' });
server.registerTool(
  'whoami',
  { description: 'Says which token it was given', inputSchema: {}, annotations: { readOnlyHint: true } },
  async () => ({
    content: [
      {
        type: 'text',
        text: JSON.stringify({
          token: process.env.TOOL_TOKEN ?? null,
          leaked: Object.keys(process.env).filter(
            (name) => name.startsWith('SVC_') || name === 'DATABASE_URL',
          ),
        }),
      },
    ],
  }),
);
await server.connect(new StdioServerTransport());
