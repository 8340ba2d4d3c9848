/**
 * Migration 3: workflows, as SQLite's migration 13 (see it for the design): the workflows an
 * apply stores, owned through managed_objects (its CHECK gains 'workflow'), the runs with the
 * counts their state is decided from, and a schedule's workflow and last run.
 */
export const postgresWorkflows = `
ALTER TABLE managed_objects DROP CONSTRAINT managed_objects_type_check;
ALTER TABLE managed_objects ADD CONSTRAINT managed_objects_type_check CHECK (type IN ('queue', 'template', 'workflow', 'schedule'));

CREATE TABLE workflows (
  name       TEXT PRIMARY KEY,
  body       TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE TRIGGER workflows_unmanage AFTER DELETE ON workflows REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION spool_unmanage('workflow');

CREATE TABLE workflow_runs (
  id          TEXT PRIMARY KEY,
  workflow    TEXT NOT NULL,
  params      TEXT NOT NULL,
  definition  TEXT NOT NULL,
  state       TEXT NOT NULL CHECK (state IN ('running', 'succeeded', 'failed', 'cancelled')),
  source      TEXT NOT NULL,
  total       INTEGER NOT NULL,
  unfinished  INTEGER NOT NULL CHECK (unfinished >= 0),
  dead        INTEGER NOT NULL DEFAULT 0 CHECK (dead >= 0),
  cancelled   INTEGER NOT NULL DEFAULT 0 CHECK (cancelled >= 0),
  created_at  BIGINT NOT NULL,
  ended_at    BIGINT
);
CREATE INDEX workflow_runs_workflow ON workflow_runs (workflow, id);

ALTER TABLE schedules ADD COLUMN workflow TEXT;
ALTER TABLE schedules ADD COLUMN last_run_id TEXT;
`;
