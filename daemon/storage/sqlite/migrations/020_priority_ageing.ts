/**
 * Migration 20: priority ageing.
 *
 * Queues gain `ageing_step` and `ageing_every_ms` (both null when ageing is off): a waiting job
 * counts `ageing_step` higher for every `ageing_every_ms` it has waited. Jobs gain
 * `priority_set`: the priority the user set, kept while the upkeep has raised `priority` (the
 * column claims order by, so the claim statements and their index stay as they are); null when
 * `priority` is the user's own.
 *
 * Group rows gain `empty_since`: when the upkeep first found the group with no waiting or running
 * job; a row empty for long enough is deleted (daemon/storage/sqlite/groupPrune.ts).
 */
export const priorityAgeing = `
ALTER TABLE queues ADD COLUMN ageing_step INTEGER CHECK (ageing_step IS NULL OR ageing_step > 0);
ALTER TABLE queues ADD COLUMN ageing_every_ms INTEGER CHECK (ageing_every_ms IS NULL OR ageing_every_ms > 0);
ALTER TABLE jobs ADD COLUMN priority_set INTEGER;
ALTER TABLE queue_groups ADD COLUMN empty_since INTEGER;
`;
