/**
 * Migration 13: workflows.
 *
 * `workflows` holds the workflows an apply stores, as templates are held (the declaration
 * without its name, as canonical JSON), and `managed_objects` may own one: SQLite cannot change
 * a CHECK in place, so that table is rebuilt (it is small: one row per declared object), its
 * three triggers dropped before and made again after, since they name it.
 *
 * `workflow_runs` holds one row per run: its values, the workflow as it was when the run
 * started, its state, and the counts that state is decided from (jobs not ended, dead, cancelled
 * by a user), moved by the transaction that ends each job. Its jobs carry its id
 * (`jobs.workflow_run_id`, indexed since migration 12).
 *
 * A schedule may start a workflow instead of enqueueing a template's job: `schedules.workflow`
 * names it, and `last_run_id` is the run its last fire started (the overlap policy looks at it).
 */
export const workflows = `
DROP TRIGGER queues_unmanage;
DROP TRIGGER templates_unmanage;
DROP TRIGGER schedules_unmanage;
CREATE TABLE managed_objects_new (
  type       TEXT NOT NULL CHECK (type IN ('queue', 'template', 'workflow', 'schedule')),
  name       TEXT NOT NULL,
  project    TEXT NOT NULL,
  applied    TEXT NOT NULL,
  applied_at INTEGER NOT NULL,
  PRIMARY KEY (type, name)
) STRICT, WITHOUT ROWID;
INSERT INTO managed_objects_new SELECT type, name, project, applied, applied_at FROM managed_objects;
DROP TABLE managed_objects;
ALTER TABLE managed_objects_new RENAME TO managed_objects;

CREATE TABLE workflows (
  name       TEXT NOT NULL PRIMARY KEY,
  body       TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TRIGGER queues_unmanage AFTER DELETE ON queues BEGIN
  DELETE FROM managed_objects WHERE type = 'queue' AND name = old.name;
END;
CREATE TRIGGER templates_unmanage AFTER DELETE ON templates BEGIN
  DELETE FROM managed_objects WHERE type = 'template' AND name = old.name;
END;
CREATE TRIGGER schedules_unmanage AFTER DELETE ON schedules BEGIN
  DELETE FROM managed_objects WHERE type = 'schedule' AND name = old.name;
END;
CREATE TRIGGER workflows_unmanage AFTER DELETE ON workflows BEGIN
  DELETE FROM managed_objects WHERE type = 'workflow' AND name = old.name;
END;

CREATE TABLE workflow_runs (
  id          TEXT NOT NULL PRIMARY KEY,
  workflow    TEXT NOT NULL,
  params      TEXT NOT NULL,
  definition  TEXT NOT NULL,
  state       TEXT NOT NULL CHECK (state IN ('running', 'succeeded', 'failed', 'cancelled')),
  source      TEXT NOT NULL,
  total       INTEGER NOT NULL,
  unfinished  INTEGER NOT NULL CHECK (unfinished >= 0),
  dead        INTEGER NOT NULL DEFAULT 0 CHECK (dead >= 0),
  cancelled   INTEGER NOT NULL DEFAULT 0 CHECK (cancelled >= 0),
  created_at  INTEGER NOT NULL,
  ended_at    INTEGER
) STRICT;
CREATE INDEX workflow_runs_workflow ON workflow_runs (workflow, id);

ALTER TABLE schedules ADD COLUMN workflow TEXT;
ALTER TABLE schedules ADD COLUMN last_run_id TEXT;
`;
