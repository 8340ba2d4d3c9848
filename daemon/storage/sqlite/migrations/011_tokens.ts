/**
 * Migration 11: access tokens for clients over the network (`spool token create`). Only the
 * SHA-256 of a token is stored, never the token; the scope says what its holder may call.
 */
export const accessTokens = `
CREATE TABLE tokens (
  name       TEXT PRIMARY KEY,
  scope      TEXT NOT NULL CHECK (scope IN ('admin', 'worker', 'read')),
  hash       TEXT NOT NULL UNIQUE CHECK (length(hash) = 64),
  created_at INTEGER NOT NULL
) STRICT;
`;
