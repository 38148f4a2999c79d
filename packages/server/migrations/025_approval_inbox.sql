-- The approvals inbox (GET /api/:org/approvals, DESIGN.md section 12): tool calls and action runs
-- that wait for a person, and those decided, newest first, across the org.

-- Tool calls: the org's approvals newest first, read a page at a time.
CREATE INDEX approvals_org_created ON approvals (org_id, created_at DESC, id DESC);

-- Action runs: when a person decided one that waited (POST /runs/:id/approve or /reject). A run an
-- agent started after its tool call was approved is `approved` from its insert, and no person
-- decided it here: without this mark the inbox would list that decision twice, as the tool call
-- and as the run. Set by a trigger, so that whatever writes the decision (the routes today, any
-- path later) records it.
ALTER TABLE runs ADD COLUMN approval_decided_at timestamptz;

CREATE FUNCTION run_approval_decided() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.approval_decided_at := now();
  RETURN NEW;
END $$;

CREATE TRIGGER run_approval_decided BEFORE UPDATE OF approval_status ON runs
  FOR EACH ROW WHEN (OLD.approval_status = 'pending' AND NEW.approval_status <> 'pending')
  EXECUTE FUNCTION run_approval_decided();

-- Runs decided before this migration. A rejection ended the run (`completed_at`). An approval left
-- no mark but the run's first log line, written when it was asked for (`approvalStatus: pending`);
-- its time is the run's claim, which follows an approval at once. A run whose first line was let go
-- (over 1,000 lines) stays out of the inbox's history.
UPDATE runs SET approval_decided_at = coalesce(completed_at, created_at)
 WHERE approval_status = 'rejected';
UPDATE runs r SET approval_decided_at = coalesce(r.claimed_at, r.created_at)
 WHERE r.approval_status = 'approved'
   AND EXISTS (SELECT 1 FROM run_logs l
                WHERE l.run_id = r.id AND l.seq = 1 AND l.fields->>'approvalStatus' = 'pending');

-- The runs the inbox lists, newest first: those waiting for a decision, and those a person decided.
CREATE INDEX runs_approvals ON runs (org_id, created_at DESC, id DESC)
  WHERE approval_status = 'pending' OR approval_decided_at IS NOT NULL;
