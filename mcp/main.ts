/**
 * dist/mcp.js: the MCP server over stdio, as `spool mcp` starts it. The daemon is reached like
 * the CLI reaches it: SPOOL_ENDPOINT (with its token and TLS pin) over TLS, else the socket of
 * SPOOL_SOCKET or the default. stdout carries nothing but the protocol; what goes wrong is told
 * on stderr and in each tool's answer.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SpoolClient } from '../shared/client/client';
import { tlsTarget } from '../shared/client/endpoint';
import { defaultSocketPath } from '../shared/client/paths';
import { errorMessage } from '../shared/protocol/errors';
import { createMcpServer } from './server';

async function main(): Promise<void> {
  const allowWrite = process.argv.includes('--allow-write');
  const target = tlsTarget();
  let opened: Promise<SpoolClient> | null = null;
  /** One connection, opened on the first tool call and again after it was lost or refused. */
  const client = (): Promise<SpoolClient> => {
    opened ??= SpoolClient.connect(target ? { tls: target } : { socketPath: defaultSocketPath() }).then(async (c) => {
      await c.handshake();
      c.onClose(() => (opened = null));
      return c;
    });
    return opened.catch((error: unknown) => {
      opened = null;
      throw error;
    });
  };
  const server = createMcpServer({ client, remote: target !== null, allowWrite, readFile: (file) => fs.readFileSync(path.resolve(file), 'utf8') });
  const transport = new StdioServerTransport();
  transport.onclose = () => process.exit(0);
  await server.connect(transport);
  process.stdin.on('end', () => process.exit(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`spool mcp: ${errorMessage(error)}\n`);
  process.exit(1);
});
