/**
 * Migration 17: retry rules, expiry and deadlines, and the pause of a running job.
 *
 * Jobs gain `retry_rule` (JSON, the rule their failures are decided by), `expire_at` (the job
 * ends dead if it has not started by then; cleared by the claim that starts it), `deadline_at`
 * (no retry after it) and `paused_at` (a running shell job whose processes are stopped). Queues
 * gain the rule and expiry their jobs get by default. The partial index serves the upkeep's walk
 * of waiting jobs past their expiry, soonest first, and the wake-up time; it holds only jobs
 * that have an expiry and have not started.
 */
export const retryRulesAndExpiry = `
ALTER TABLE jobs ADD COLUMN retry_rule TEXT;
ALTER TABLE jobs ADD COLUMN expire_at INTEGER;
ALTER TABLE jobs ADD COLUMN deadline_at INTEGER;
ALTER TABLE jobs ADD COLUMN paused_at INTEGER;
ALTER TABLE queues ADD COLUMN retry_rule TEXT;
ALTER TABLE queues ADD COLUMN default_expire_after_ms INTEGER CHECK (default_expire_after_ms IS NULL OR default_expire_after_ms > 0);
CREATE INDEX jobs_expiry ON jobs (expire_at) WHERE expire_at IS NOT NULL;
`;
