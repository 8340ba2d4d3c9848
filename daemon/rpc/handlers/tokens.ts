/** Handlers of auth.login and tokens.*: logging in over TCP, and managing tokens over the Unix socket. */
import { SpoolError } from '../../../shared/protocol/errors';
import { ErrorCode, TOKEN_SCOPES, type TokenInfo } from '../../../shared/protocol';
import { name, object, oneOf, string } from '../../../shared/domain/validate';
import { login, newToken, revokedDuringLogin, stillStored } from '../auth';
import type { HandlerGroup, Services } from './types';

type TokenMethods = 'auth.login' | 'tokens.create' | 'tokens.list' | 'tokens.revoke';

export function tokenHandlers(s: Services): HandlerGroup<TokenMethods> {
  return {
    'auth.login': async (params, context) => {
      const p = object(params, 'params', ['token']);
      const token = string(p['token'], 'token', 1024, 1);
      const auth = context.connection.auth;
      // Over the Unix socket there is nothing to log in to: the local user may do everything.
      if (auth.transport === 'unix') return { name: 'local', scope: 'admin' };
      const found = await login(s.engine, s.logins, token, { id: context.connection.id, auth, endWhenAnswered: (ms) => context.connection.endWhenAnswered(ms) });
      // A revoke may commit between the read above and now: its sessions were closed before this
      // one counted as one. The session is set first and the token read again after: a revoke
      // that commits before this read is seen by it, and one that commits after closes the
      // session like any other (on every daemon: a notice, and the daemon's re-check).
      auth.login = found;
      if (!stillStored(found, await s.engine.listTokens())) {
        auth.login = null;
        s.logger.warn('Refused a login: its token was revoked meanwhile', { connection: context.connection.id, remote: auth.remote, token: found.name });
        throw revokedDuringLogin(found.name);
      }
      if (context.connection.isClosed) throw revokedDuringLogin(found.name);
      s.logger.info('A connection logged in', { connection: context.connection.id, remote: auth.remote, token: found.name, scope: found.scope });
      context.connection.loggedIn();
      return { name: found.name, scope: found.scope };
    },
    'tokens.create': async (params) => {
      const p = object(params, 'params', ['name', 'scope']);
      const tokenName = name(p['name'], 'name');
      const scope = oneOf(p['scope'], 'scope', TOKEN_SCOPES);
      const { token, hash } = newToken();
      const createdAt = Date.now();
      await s.engine.createToken({ name: tokenName, scope, hash, createdAt });
      return { token, info: { name: tokenName, scope, createdAt } };
    },
    'tokens.list': async (params) => {
      object(params, 'params', []);
      const tokens: TokenInfo[] = (await s.engine.listTokens()).map(({ name: n, scope, createdAt }) => ({ name: n, scope, createdAt }));
      return { tokens };
    },
    'tokens.revoke': async (params) => {
      const p = object(params, 'params', ['name']);
      const tokenName = name(p['name'], 'name');
      if (!(await s.engine.revokeToken(tokenName))) {
        throw new SpoolError(ErrorCode.InvalidParams, `No token named "${tokenName}". \`spool token list\` shows them.`, { field: 'name' });
      }
      // The sessions logged in with it were closed when the revoke committed (the engine's
      // tokenRevoked event, on every daemon of the store), before this answer.
      return { ok: true };
    },
  };
}
