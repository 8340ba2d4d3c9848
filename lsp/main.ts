/**
 * dist/lsp.js: the language server as a program, over stdio (`spool lsp --stdio` runs it;
 * vscode-languageserver reads `--stdio` from the arguments), or node IPC / a socket when an
 * editor asks for those. Nothing is written to stdout but the protocol.
 */
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from './server';

startServer(createConnection(ProposedFeatures.all));
