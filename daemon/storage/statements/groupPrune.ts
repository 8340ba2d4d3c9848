/**
 * Statement of the pruning of group rows (see ./index.ts for the protocol): a queue's per-group
 * row (`queue_groups`: counts, token bucket, turn) is made by the first job of a group and stays
 * while the group has jobs; a group with no waiting or running job for a while has its row
 * deleted, so that one-off group keys (a customer seen once) do not leave a row each forever.
 */
export type GroupPruneSql = {
  /**
   * One pass: notes `now` on each group row found with no waiting or running job that had no such
   * note, clears the note of a row whose group has jobs again, and deletes up to `limit` rows
   * noted at or before `before` that still have none. How many rows were noted and deleted. A
   * group that was busy only between two passes keeps the note of the earlier one.
   */
  groupPruneEmpty(p: { now: number; before: number; limit: number }): { noted: number; deleted: number };
};
