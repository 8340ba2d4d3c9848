/**
 * Migration 18: groups. A job may carry a group key (`group_key`; '' in a grouped queue for the
 * jobs enqueued without one, so that they form a group of their own); a queue may bound each
 * group's running weight and start rate and weigh the groups' turns. `queue_groups` holds one
 * row per (queue, group): what its jobs wait and weigh while running (kept by the triggers
 * below, in the same transaction as every move of a job, whichever statement makes it), its
 * token bucket, and its fairness turn (`pass`: the lowest goes next, see
 * daemon/engine/ops/groups.ts).
 *
 * The triggers only fire for jobs that have a group key (WHEN), so jobs of ungrouped queues pay
 * nothing but the check; the claim index of grouped jobs is partial for the same reason.
 */
export const groups = `
ALTER TABLE jobs ADD COLUMN group_key TEXT;
ALTER TABLE queues ADD COLUMN group_concurrency INTEGER CHECK (group_concurrency IS NULL OR group_concurrency >= 1);
ALTER TABLE queues ADD COLUMN group_rate_per_second REAL CHECK (group_rate_per_second IS NULL OR group_rate_per_second > 0);
ALTER TABLE queues ADD COLUMN group_rate_burst INTEGER CHECK (group_rate_burst IS NULL OR group_rate_burst >= 1);
ALTER TABLE queues ADD COLUMN group_weights TEXT;
ALTER TABLE queues ADD COLUMN grouped INTEGER NOT NULL DEFAULT 0 CHECK (grouped IN (0, 1));

CREATE TABLE queue_groups (
  queue            TEXT NOT NULL,
  group_key        TEXT NOT NULL,
  waiting          INTEGER NOT NULL DEFAULT 0 CHECK (waiting >= 0),
  running          INTEGER NOT NULL DEFAULT 0 CHECK (running >= 0),
  pass             INTEGER NOT NULL DEFAULT 0,
  rate_tokens      REAL,
  rate_refilled_at INTEGER,
  PRIMARY KEY (queue, group_key)
) STRICT;
-- The claim's walk: groups with waiting jobs, lowest turn first; and the last turn given.
CREATE INDEX queue_groups_turn ON queue_groups (queue, pass, group_key) WHERE waiting > 0;
CREATE INDEX queue_groups_pass ON queue_groups (queue, pass);

-- A group's waiting jobs in claim order.
CREATE INDEX jobs_group_claim ON jobs (queue, group_key, priority DESC, run_at, id) WHERE state IN ('queued', 'retrying') AND group_key IS NOT NULL;

-- A new group starts level with the lowest turn of the groups waiting now (or after every turn
-- given, when none waits), and so does a group whose jobs wait again after it had none: neither
-- is owed the turns it was not there for.
CREATE TRIGGER jobs_group_insert AFTER INSERT ON jobs WHEN new.group_key IS NOT NULL BEGIN
  INSERT INTO queue_groups (queue, group_key, waiting, running, pass)
    SELECT new.queue, new.group_key, (new.state IN ('queued', 'retrying')), (CASE WHEN new.state = 'running' THEN new.weight ELSE 0 END), coalesce((SELECT min(pass) FROM queue_groups INDEXED BY queue_groups_turn WHERE queue = new.queue AND waiting > 0), (SELECT max(pass) FROM queue_groups INDEXED BY queue_groups_pass WHERE queue = new.queue), 0)
    WHERE new.group_key IS NOT NULL
    ON CONFLICT (queue, group_key) DO UPDATE SET waiting = waiting + excluded.waiting, running = running + excluded.running,
      pass = CASE WHEN waiting = 0 AND excluded.waiting > 0 THEN max(pass, excluded.pass) ELSE pass END;
END;
CREATE TRIGGER jobs_group_delete AFTER DELETE ON jobs WHEN old.group_key IS NOT NULL AND old.state IN ('queued', 'retrying', 'running') BEGIN
  UPDATE queue_groups SET waiting = waiting - (old.state IN ('queued', 'retrying')), running = running - (CASE WHEN old.state = 'running' THEN old.weight ELSE 0 END)
    WHERE queue = old.queue AND group_key = old.group_key;
END;
-- The common move (a claim, an end, a retry): the same group, one row updated.
CREATE TRIGGER jobs_group_move AFTER UPDATE OF state, weight ON jobs
  WHEN new.group_key IS NOT NULL AND old.group_key IS new.group_key AND old.queue = new.queue
    AND (old.state IS NOT new.state OR old.weight IS NOT new.weight) BEGIN
  UPDATE queue_groups SET
    pass = CASE WHEN waiting = 0 AND (new.state IN ('queued', 'retrying')) > (old.state IN ('queued', 'retrying')) THEN max(pass, coalesce((SELECT min(pass) FROM queue_groups INDEXED BY queue_groups_turn WHERE queue = new.queue AND waiting > 0), pass)) ELSE pass END,
    waiting = waiting - (old.state IN ('queued', 'retrying')) + (new.state IN ('queued', 'retrying')), running = running - (CASE WHEN old.state = 'running' THEN old.weight ELSE 0 END) + (CASE WHEN new.state = 'running' THEN new.weight ELSE 0 END)
    WHERE queue = new.queue AND group_key = new.group_key;
END;
-- A job given another group (or a group for the first time, when its queue becomes grouped).
CREATE TRIGGER jobs_group_regroup AFTER UPDATE OF group_key, queue ON jobs
  WHEN old.group_key IS NOT new.group_key OR old.queue IS NOT new.queue BEGIN
  UPDATE queue_groups SET waiting = waiting - (old.state IN ('queued', 'retrying')), running = running - (CASE WHEN old.state = 'running' THEN old.weight ELSE 0 END)
    WHERE old.group_key IS NOT NULL AND queue = old.queue AND group_key = old.group_key;
  INSERT INTO queue_groups (queue, group_key, waiting, running, pass)
    SELECT new.queue, new.group_key, (new.state IN ('queued', 'retrying')), (CASE WHEN new.state = 'running' THEN new.weight ELSE 0 END), coalesce((SELECT min(pass) FROM queue_groups INDEXED BY queue_groups_turn WHERE queue = new.queue AND waiting > 0), (SELECT max(pass) FROM queue_groups INDEXED BY queue_groups_pass WHERE queue = new.queue), 0)
    WHERE new.group_key IS NOT NULL
    ON CONFLICT (queue, group_key) DO UPDATE SET waiting = waiting + excluded.waiting, running = running + excluded.running,
      pass = CASE WHEN waiting = 0 AND excluded.waiting > 0 THEN max(pass, excluded.pass) ELSE pass END;
END;
CREATE TRIGGER queues_groups_delete AFTER DELETE ON queues BEGIN
  DELETE FROM queue_groups WHERE queue = old.name;
END;
`;
