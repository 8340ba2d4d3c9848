/**
 * Migration 10: a queue's resource limits for its shell jobs (ResourceLimits: memory, CPU time,
 * open files, processes), one column each, NULL where the queue sets none. Columns rather than
 * one JSON text, so that the CHECK constraints hold the values to what the executor can apply.
 */
export const queueResourceLimits = `
ALTER TABLE queues ADD COLUMN limit_memory_bytes INTEGER CHECK (limit_memory_bytes IS NULL OR limit_memory_bytes >= 1);
ALTER TABLE queues ADD COLUMN limit_cpu_seconds  INTEGER CHECK (limit_cpu_seconds IS NULL OR limit_cpu_seconds >= 1);
ALTER TABLE queues ADD COLUMN limit_open_files   INTEGER CHECK (limit_open_files IS NULL OR limit_open_files >= 1);
ALTER TABLE queues ADD COLUMN limit_processes    INTEGER CHECK (limit_processes IS NULL OR limit_processes >= 1);
`;
