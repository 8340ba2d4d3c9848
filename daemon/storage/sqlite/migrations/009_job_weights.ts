/**
 * Migration 9: job weights and worker capacities.
 *
 * A job's `weight` (1 by default) is how much of its queue's concurrency, and of its worker's
 * capacity, it takes while it runs: one heavy encode of weight 4 takes the room of four small
 * jobs. Every job written before this version weighs 1, which is what it counted as before.
 *
 * A queue's concurrency check needs the weight its running jobs hold. The running count is
 * already kept (queue_counts); `running_extra_weight` keeps what the running jobs weigh beyond
 * one each (the sum of weight - 1), so jobs of the default weight never write it and the claim
 * of such jobs costs no more than it did. The store keeps it in the same transaction as the
 * state changes it follows (counts.ts).
 *
 * A worker's `capacity` (NULL: none declared) bounds the weight of the jobs it holds at once.
 */
export const jobWeights = `
ALTER TABLE jobs ADD COLUMN weight INTEGER NOT NULL DEFAULT 1 CHECK (weight >= 1);
ALTER TABLE queues ADD COLUMN running_extra_weight INTEGER NOT NULL DEFAULT 0 CHECK (running_extra_weight >= 0);
ALTER TABLE workers ADD COLUMN capacity INTEGER CHECK (capacity IS NULL OR capacity >= 1);
`;
