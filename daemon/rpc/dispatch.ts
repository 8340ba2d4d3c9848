/**
 * Turns request lines into handler calls and handler outcomes into response lines. Parsing,
 * envelope and depth checks, routing to the handler and the response objects all happen here. No
 * input — however malformed — escapes as an exception: each gets an error response, and
 * unexpected failures are logged with context.
 *
 * Routing is a map lookup and one promise per call: json-rpc-2.0's JSONRPCServer (which did it
 * before) ran each call through down-compiled generators and several promises of its own, a
 * measurable share of a small request's cost (BENCHMARKS.md, "Wake latency").
 */
import { createJSONRPCErrorResponse, type JSONRPCErrorResponse, type JSONRPCID, type JSONRPCRequest, type JSONRPCResponse } from 'json-rpc-2.0';
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
  private readonly methods = new Map<string, MethodHandler>();

  constructor(
    handlers: Readonly<Record<string, MethodHandler>>,
    private readonly logger: Logger,
    /** Runs before every request is handled (the enqueue group commit flushes here). */
    private readonly beforeCall: (method: string) => void = () => undefined,
  ) {
    for (const [name, handler] of Object.entries(handlers)) this.methods.set(name, handler);
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
    const handler = KNOWN_METHODS.has(request.method) ? this.methods.get(request.method) : undefined;
    if (handler === undefined) {
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
    return this.call(handler, request, context);
  }

  /** Runs the handler; its result or its error becomes the answer (none for a notification). */
  private call(handler: MethodHandler, request: JSONRPCRequest, context: CallContext): Promise<JSONRPCResponse | null> {
    let outcome: unknown;
    try {
      // The engine records who acted in a job's history (engine/actor.ts).
      outcome = actingAs(actorOf(context.connection.auth), () => handler(request.params, context));
    } catch (error) {
      return Promise.resolve(this.failure(request, error, context));
    }
    return Promise.resolve(outcome).then(
      (result) => (request.id === undefined ? null : { jsonrpc: '2.0', id: request.id, result: result ?? null }),
      (error: unknown) => this.failure(request, error, context),
    );
  }

  /** A handler's error as the answer; one that is not a SpoolError is logged as unexpected. */
  private failure(request: JSONRPCRequest, error: unknown, context: CallContext): JSONRPCErrorResponse | null {
    let answer = error;
    if (!(error instanceof SpoolError)) {
      this.logger.error(`Unexpected error in ${request.method}`, { connection: context.connection.id, error });
      const reason = errorMessage(error);
      answer = new SpoolError(ErrorCode.InternalError, `Internal error in ${request.method}: ${reason}. The daemon log has the details.`);
    }
    return request.id === undefined ? null : toErrorResponse(request.id, answer as SpoolError);
  }
}

function toErrorResponse(id: JSONRPCID, error: SpoolError): JSONRPCErrorResponse {
  return createJSONRPCErrorResponse(id, error.code, error.message, error.data);
}

function truncate(text: string): string {
  return text.length > 80 ? text.slice(0, 80) + '…' : text;
}
