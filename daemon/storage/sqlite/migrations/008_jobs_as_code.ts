/**
 * Migration 8: jobs as code. A project's `spool apply` records, per object it made (a queue, a
 * template, a schedule), which project owns it and the canonical JSON of what it last declared,
 * so that `spool plan` tells a change in the file from a change made by hand (drift), and never
 * touches what no project owns. Templates become stored objects (a schedule and `spool run` use
 * them by name), and a schedule keeps the template and parameters its job came from, and its
 * overlap policy.
 *
 * Ownership is a table of its own rather than columns of queues and schedules: one shape for
 * the three types, and the rows a hand-made object never has stay out of the hot queue rows.
 * Triggers drop an object's ownership with the object, so a schedule deleted by hand and made
 * again by hand under the same name is not taken for the project's.
 */
export const jobsAsCode = `
CREATE TABLE managed_objects (
  type       TEXT NOT NULL CHECK (type IN ('queue', 'template', 'schedule')),
  name       TEXT NOT NULL,
  project    TEXT NOT NULL,
  -- canonicalJson of the declared value (shared/jobsfile): keys sorted, so equal values compare equal.
  applied    TEXT NOT NULL,
  applied_at INTEGER NOT NULL,
  PRIMARY KEY (type, name)
) STRICT, WITHOUT ROWID;

CREATE TABLE templates (
  name       TEXT PRIMARY KEY,
  queue      TEXT NOT NULL,
  kind       TEXT NOT NULL,
  -- The template as declared, without its name (TemplateState), as canonical JSON.
  body       TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

ALTER TABLE schedules ADD COLUMN overlap_policy TEXT NOT NULL DEFAULT 'allow' CHECK (overlap_policy IN ('allow', 'skip'));
ALTER TABLE schedules ADD COLUMN template TEXT;
ALTER TABLE schedules ADD COLUMN params TEXT;

CREATE TRIGGER queues_unmanage AFTER DELETE ON queues BEGIN
  DELETE FROM managed_objects WHERE type = 'queue' AND name = old.name;
END;
CREATE TRIGGER templates_unmanage AFTER DELETE ON templates BEGIN
  DELETE FROM managed_objects WHERE type = 'template' AND name = old.name;
END;
CREATE TRIGGER schedules_unmanage AFTER DELETE ON schedules BEGIN
  DELETE FROM managed_objects WHERE type = 'schedule' AND name = old.name;
END;
`;
