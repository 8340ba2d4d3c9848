/**
 * The access token of a remote daemon (`spool.endpoint`): asked for in a password box and kept in
 * VS Code's secret storage (the system keychain where there is one), never in settings; one per
 * endpoint. Setting or forgetting it connects again.
 */
import * as vscode from 'vscode';
import type { SpoolContext } from '../../context';
import { tokenKey } from '../../daemon/remote';
import { command } from '../command';

function endpointOrSay(ctx: SpoolContext): string | null {
  const endpoint = ctx.connection.endpoint;
  if (endpoint === null) {
    void vscode.window.showInformationMessage('An access token is for a daemon on another machine: set spool.endpoint (tls://HOST:PORT) first. The daemon on this machine needs none.');
  }
  return endpoint;
}

export const setAccessToken = command(
  'spool.endpoint.setToken',
  async (ctx) => {
    const endpoint = endpointOrSay(ctx);
    if (endpoint === null) return ctx.connection.state;
    const token = await vscode.window.showInputBox({
      title: `Access token for ${endpoint}`,
      prompt: "Make one on the daemon's machine with `spool token create NAME --scope read|worker|admin`; it is kept in VS Code's secret storage.",
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() === '' ? 'Paste the token that `spool token create` printed.' : null),
    });
    if (token === undefined) return ctx.connection.state;
    await ctx.extension.secrets.store(tokenKey(endpoint), token.trim());
    ctx.log.info(`Stored an access token for ${endpoint}; connecting.`);
    await ctx.connection.connect(false);
    return ctx.connection.state;
  },
  false,
);

export const forgetAccessToken = command(
  'spool.endpoint.forgetToken',
  async (ctx) => {
    const endpoint = endpointOrSay(ctx);
    if (endpoint === null) return ctx.connection.state;
    await ctx.extension.secrets.delete(tokenKey(endpoint));
    ctx.log.info(`Forgot the access token for ${endpoint}.`);
    void vscode.window.setStatusBarMessage(`Spool: forgot the access token for ${endpoint}.`, 4000);
    await ctx.connection.connect(false);
    return ctx.connection.state;
  },
  false,
);
