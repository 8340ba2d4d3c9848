/**
 * Migration 8: groups, as SQLite's migration 18 (see it for the design). Unlike SQLite, the
 * group rows are kept by row-level triggers in PL/pgSQL, which fire only for jobs with a group
 * key (WHEN), so the claims and heartbeats of ungrouped jobs never run them. A claim locks the
 * group rows it draws on (FOR NO KEY UPDATE SKIP LOCKED), and every move of a grouped job
 * updates its group's row in the same transaction, so the running weight a claimer reads once it
 * holds the lock is what every daemon has committed.
 */
export const postgresGroups = `
ALTER TABLE jobs ADD COLUMN group_key TEXT;
ALTER TABLE queues ADD COLUMN group_concurrency INTEGER CHECK (group_concurrency IS NULL OR group_concurrency >= 1);
ALTER TABLE queues ADD COLUMN group_rate_per_second DOUBLE PRECISION CHECK (group_rate_per_second IS NULL OR group_rate_per_second > 0);
ALTER TABLE queues ADD COLUMN group_rate_burst INTEGER CHECK (group_rate_burst IS NULL OR group_rate_burst >= 1);
ALTER TABLE queues ADD COLUMN group_weights TEXT;
ALTER TABLE queues ADD COLUMN grouped INTEGER NOT NULL DEFAULT 0 CHECK (grouped IN (0, 1));

CREATE TABLE queue_groups (
  queue            TEXT NOT NULL REFERENCES queues (name) ON DELETE CASCADE,
  group_key        TEXT NOT NULL,
  waiting          BIGINT NOT NULL DEFAULT 0 CHECK (waiting >= 0),
  running          BIGINT NOT NULL DEFAULT 0 CHECK (running >= 0),
  pass             BIGINT NOT NULL DEFAULT 0,
  rate_tokens      DOUBLE PRECISION,
  rate_refilled_at BIGINT,
  PRIMARY KEY (queue, group_key)
);
CREATE INDEX queue_groups_turn ON queue_groups (queue, pass, group_key) WHERE waiting > 0;
CREATE INDEX queue_groups_pass ON queue_groups (queue, pass);
CREATE INDEX jobs_group_claim ON jobs (queue, group_key, priority DESC, run_at, id) WHERE state IN ('queued', 'retrying') AND group_key IS NOT NULL;

-- A new group starts level with the lowest turn of the groups waiting now (or after every turn
-- given, when none waits), and so does a group whose jobs wait again after it had none.
CREATE FUNCTION spool_group_jobs() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  old_waiting INTEGER := 0;
  old_running INTEGER := 0;
  new_waiting INTEGER := 0;
  new_running INTEGER := 0;
  level BIGINT;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.group_key IS NOT NULL THEN
    old_waiting := CASE WHEN OLD.state IN ('queued', 'retrying') THEN 1 ELSE 0 END;
    old_running := CASE WHEN OLD.state = 'running' THEN OLD.weight ELSE 0 END;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.group_key IS NOT NULL THEN
    new_waiting := CASE WHEN NEW.state IN ('queued', 'retrying') THEN 1 ELSE 0 END;
    new_running := CASE WHEN NEW.state = 'running' THEN NEW.weight ELSE 0 END;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.group_key = NEW.group_key AND OLD.queue = NEW.queue THEN
    -- The common move (a claim, an end, a retry): one row.
    IF new_waiting > old_waiting THEN
      SELECT min(pass) INTO level FROM queue_groups WHERE queue = NEW.queue AND waiting > 0;
    END IF;
    UPDATE queue_groups SET
      pass = CASE WHEN waiting = 0 AND new_waiting > old_waiting AND level IS NOT NULL THEN GREATEST(pass, level) ELSE pass END,
      waiting = waiting - old_waiting + new_waiting, running = running - old_running + new_running
    WHERE queue = NEW.queue AND group_key = NEW.group_key;
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.group_key IS NOT NULL AND (old_waiting > 0 OR old_running > 0) THEN
    UPDATE queue_groups SET waiting = waiting - old_waiting, running = running - old_running
    WHERE queue = OLD.queue AND group_key = OLD.group_key;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.group_key IS NOT NULL THEN
    SELECT min(pass) INTO level FROM queue_groups WHERE queue = NEW.queue AND waiting > 0;
    IF level IS NULL THEN
      SELECT max(pass) INTO level FROM queue_groups WHERE queue = NEW.queue;
    END IF;
    INSERT INTO queue_groups AS g (queue, group_key, waiting, running, pass)
      VALUES (NEW.queue, NEW.group_key, new_waiting, new_running, coalesce(level, 0))
      ON CONFLICT (queue, group_key) DO UPDATE SET waiting = g.waiting + EXCLUDED.waiting, running = g.running + EXCLUDED.running,
        pass = CASE WHEN g.waiting = 0 AND EXCLUDED.waiting > 0 THEN GREATEST(g.pass, EXCLUDED.pass) ELSE g.pass END;
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER jobs_group_insert AFTER INSERT ON jobs FOR EACH ROW WHEN (NEW.group_key IS NOT NULL) EXECUTE FUNCTION spool_group_jobs();
CREATE TRIGGER jobs_group_delete AFTER DELETE ON jobs FOR EACH ROW WHEN (OLD.group_key IS NOT NULL) EXECUTE FUNCTION spool_group_jobs();
CREATE TRIGGER jobs_group_update AFTER UPDATE OF state, group_key, weight, queue ON jobs FOR EACH ROW
  WHEN ((OLD.group_key IS NOT NULL OR NEW.group_key IS NOT NULL)
    AND (OLD.state IS DISTINCT FROM NEW.state OR OLD.group_key IS DISTINCT FROM NEW.group_key OR OLD.weight IS DISTINCT FROM NEW.weight OR OLD.queue IS DISTINCT FROM NEW.queue))
  EXECUTE FUNCTION spool_group_jobs();
`;
