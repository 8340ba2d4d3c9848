/**
 * Migration 7: retry rules, expiry and deadlines, and the pause of a running job, as SQLite's
 * migration 17 (see it for the design).
 */
export const postgresRetryRulesAndExpiry = `
ALTER TABLE jobs ADD COLUMN retry_rule TEXT;
ALTER TABLE jobs ADD COLUMN expire_at BIGINT;
ALTER TABLE jobs ADD COLUMN deadline_at BIGINT;
ALTER TABLE jobs ADD COLUMN paused_at BIGINT;
ALTER TABLE queues ADD COLUMN retry_rule TEXT;
ALTER TABLE queues ADD COLUMN default_expire_after_ms BIGINT CHECK (default_expire_after_ms IS NULL OR default_expire_after_ms > 0);
CREATE INDEX jobs_expiry ON jobs (expire_at) WHERE expire_at IS NOT NULL;
`;
