import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export type McpMode = 'legacy' | 'auto';

/** The official MCP client connected to the service's `/mcp` with an API key. */
export async function connectMcp(baseUrl: string, key: string | undefined, mode: McpMode = 'auto'): Promise<Client> {
  const client = new Client({ name: 'svc-test-client', version: '1.0.0' }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : {},
  });
  await client.connect(transport);
  return client;
}
