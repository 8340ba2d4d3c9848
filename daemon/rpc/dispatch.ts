/**
 * Turns request lines into handler calls and handler outcomes into response lines. Parsing,
 * envelope and depth checks happen here; json-rpc-2.0's JSONRPCServer routes each request to its
 * handler and builds the response objects. No input — however malformed — escapes as an
 * exception: each gets an error response, and unexpected failures are logged with context.
 */
import { JSONRPCServer, createJSONRPCErrorResponse, type JSONRPCErrorResponse, type JSONRPCID, type JSONRPCResponse } from 'json-rpc-2.0';
import { SpoolError, errorMessage } from '../../shared/protocol/errors';
import { ErrorCode, LIMITS, METHOD_NAMES } from '../../shared/protocol';
import type { Logger } from '../lifecycle/logger';
import type { RpcConnection } from './connection';
import { MAX_DEPTH, checkEnvelope, idOf, nestsDeeperThan } from './envelope';
import { actorOf, refusal } from './auth';
import { actingAs } from '../engine/actor';

export interface CallContext {
  connection: RpcConnection;
}

export type MethodHandler = (params: unknown, context: CallContext) => unknown;

const KNOWN_METHODS: ReadonlySet<string> = new Set(METHOD_NAMES);

export class Dispatcher {
  private readonly rpc: JSONRPCServer<CallContext>;

  constructor(
    handlers: Readonly<Record<string, MethodHandler>>,
    private readonly logger: Logger,
    /** Runs before every request is handled (the enqueue group commit flushes here). */
    private readonly beforeCall: (method: string) => void = () => undefined,
  ) {
    // Errors are logged by `wrap` with their method; the library's own listener would only repeat them.
    this.rpc = new JSONRPCServer<CallContext>({ errorListener: () => undefined });
    this.rpc.mapErrorToJSONRPCErrorResponse = toErrorResponse;
    for (const [name, handler] of Object.entries(handlers)) this.rpc.addMethod(name, this.wrap(name, handler));
  }

  /** Handles one line from a connection; the answer (if any) is sent on that connection. */
  handleLine(connection: RpcConnection, line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      const reason = errorMessage(error);
      connection.send(createJSONRPCErrorResponse(null, ErrorCode.ParseError, `Parse error: the line is not valid JSON (${reason}).`));
      return;
    }
    if (nestsDeeperThan(message, MAX_DEPTH)) {
      connection.send(
        createJSONRPCErrorResponse(idOf(message), ErrorCode.InvalidRequest, `Invalid request: the message nests deeper than ${MAX_DEPTH} levels.`, {
          limit: MAX_DEPTH,
        }),
      );
      return;
    }
    const context: CallContext = { connection };
    if (!Array.isArray(message)) {
      connection.track(
        this.handleOne(message, context).then(
          (response) => {
            if (response) connection.send(response);
          },
          (error: unknown) => this.logger.error('Could not answer a request', { connection: connection.id, error }),
        ),
      );
      return;
    }
    const auth = connection.auth;
    if (auth.transport === 'tls' && auth.login === null) {
      // A login is one request; a batch of them would be a way to try many at once.
      connection.send(
        createJSONRPCErrorResponse(null, ErrorCode.InvalidRequest, 'Invalid request: batches are refused before logging in; send auth.login on its own first.'),
      );
      return;
    }
    if (message.length === 0 || message.length > LIMITS.maxBatch) {
      const why = message.length === 0 ? 'an empty batch' : `a batch holds at most ${LIMITS.maxBatch} messages`;
      connection.send(createJSONRPCErrorResponse(null, ErrorCode.InvalidRequest, `Invalid request: ${why}.`, { limit: LIMITS.maxBatch }));
      return;
    }
    connection.track(
      Promise.all(message.map((item) => this.handleOne(item, context))).then(
        (responses) => {
          // A batch is answered with an array, even of one; a batch of notifications gets no answer.
          const answered = responses.filter((r): r is JSONRPCResponse => r !== null);
          if (answered.length > 0) connection.send(answered);
        },
        (error: unknown) => this.logger.error('Could not answer a batch', { connection: connection.id, error }),
      ),
    );
  }

  private handleOne(message: unknown, context: CallContext): PromiseLike<JSONRPCResponse | null> {
    const check = checkEnvelope(message);
    if (!check.ok) return Promise.resolve(check.response);
    const { request } = check;
    if (!KNOWN_METHODS.has(request.method) || !this.rpc.hasMethod(request.method)) {
      if (request.id === undefined) return Promise.resolve(null);
      return Promise.resolve(
        createJSONRPCErrorResponse(
          request.id,
          ErrorCode.MethodNotFound,
          `Unknown method "${truncate(request.method)}". The methods are listed in docs/protocol.md.`,
          { field: 'method' },
        ),
      );
    }
    // Over TCP, the connection's login decides which methods it may call (rpc/auth.ts).
    const refused = refusal(request.method, context.connection.auth);
    if (refused) {
      if (request.id === undefined) return Promise.resolve(null);
      return Promise.resolve(createJSONRPCErrorResponse(request.id, refused.code, refused.message, refused.data));
    }
    this.beforeCall(request.method);
    return this.rpc.receive(request, context);
  }

  private wrap(method: string, handler: MethodHandler): (params: unknown, context: CallContext) => Promise<unknown> {
    return async (params, context) => {
      try {
        // The engine records who acted in a job's history (engine/actor.ts).
        return await actingAs(actorOf(context.connection.auth), () => handler(params, context));
      } catch (error) {
        if (error instanceof SpoolError) throw error;
        this.logger.error(`Unexpected error in ${method}`, { connection: context.connection.id, error });
        const reason = errorMessage(error);
        throw new SpoolError(ErrorCode.InternalError, `Internal error in ${method}: ${reason}. The daemon log has the details.`);
      }
    };
  }
}

function toErrorResponse(id: JSONRPCID, error: unknown): JSONRPCErrorResponse {
  if (error instanceof SpoolError) return createJSONRPCErrorResponse(id, error.code, error.message, error.data);
  const reason = errorMessage(error);
  return createJSONRPCErrorResponse(id, ErrorCode.InternalError, `Internal error: ${reason}.`);
}

function truncate(text: string): string {
  return text.length > 80 ? text.slice(0, 80) + '…' : text;
}
