/**
 * Migration 10: priority ageing, as SQLite's migration 20 (see it for the design).
 */
export const postgresPriorityAgeing = `
ALTER TABLE queues ADD COLUMN ageing_step INTEGER CHECK (ageing_step IS NULL OR ageing_step > 0);
ALTER TABLE queues ADD COLUMN ageing_every_ms BIGINT CHECK (ageing_every_ms IS NULL OR ageing_every_ms > 0);
ALTER TABLE jobs ADD COLUMN priority_set INTEGER;
ALTER TABLE queue_groups ADD COLUMN empty_since BIGINT;
`;
