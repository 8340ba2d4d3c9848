/**
 * Checks a parsed line before any handler sees it: the JSON-RPC 2.0 envelope (version, method,
 * params, id) and how deeply the message nests. json-rpc-2.0 accepts more than the spec allows
 * (params of any type, a batch answered with a bare object), so the daemon is strict here.
 */
import { createJSONRPCErrorResponse, type JSONRPCErrorResponse, type JSONRPCID, type JSONRPCRequest } from 'json-rpc-2.0';
import { isRecord } from '../../shared/domain/records';
import { ErrorCode } from '../../shared/protocol';

/** Deeper JSON is refused: no real payload nests this far, and deep values cost stack elsewhere. */
export const MAX_DEPTH = 64;

export type EnvelopeCheck = { ok: true; request: JSONRPCRequest } | { ok: false; response: JSONRPCErrorResponse };

/** The id to answer with: the request's own when it is a valid id, else null. */
export function idOf(message: unknown): JSONRPCID {
  if (!isRecord(message)) return null;
  const id = message.id;
  if (typeof id === 'string' || id === null) return id;
  if (typeof id === 'number' && Number.isFinite(id)) return id;
  return null;
}

export function checkEnvelope(message: unknown): EnvelopeCheck {
  const invalid = (why: string): EnvelopeCheck => ({
    ok: false,
    response: createJSONRPCErrorResponse(idOf(message), ErrorCode.InvalidRequest, `Invalid request: ${why}.`),
  });
  if (!isRecord(message)) return invalid('each message must be a JSON object');
  if (message.jsonrpc !== '2.0') return invalid('"jsonrpc" must be "2.0"');
  if (typeof message.method !== 'string' || message.method.length === 0) return invalid('"method" must be a non-empty string');
  const hasId = message.id !== undefined;
  const id = idOf(message);
  if (hasId && id === null && message.id !== null) return invalid('"id" must be a string, a finite number or null');
  const params = message.params;
  // null is a value, not an absence: `params: null` is refused like null for any param (docs/protocol.md).
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
    return {
      ok: false,
      response: createJSONRPCErrorResponse(
        idOf(message),
        ErrorCode.InvalidParams,
        `Invalid params: Spool methods take named params (a JSON object), or none: leave "params" out (got ${params === null ? 'null' : Array.isArray(params) ? 'an array' : typeof params}).`,
        { field: 'params' },
      ),
    };
  }
  const request: JSONRPCRequest = { jsonrpc: '2.0', method: message.method, params };
  if (hasId) request.id = id;
  return { ok: true, request };
}

/** True when `value` nests objects/arrays deeper than `limit`. Stops as soon as it knows. */
export function nestsDeeperThan(value: unknown, limit: number = MAX_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (limit === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestsDeeperThan(item, limit - 1)) return true;
    return false;
  }
  for (const item of Object.values(value)) if (nestsDeeperThan(item, limit - 1)) return true;
  return false;
}
