-- Version 4: every process serving an orchestrator is active. A claimed
-- queue item names the instance key of its claimer (a session advisory
-- lock that process holds while it lives), so that a dead claimer's items
-- are taken back at once and a live one's write is fenced.
ALTER TABLE schedbot_queue ADD COLUMN lease_key integer;

-- Delivery lanes: one channel's deliveries go one at a time, in order,
-- from one process; the lane row says which one holds it, until when, and
-- when the lane last delivered (the channel's pace, whoever posted).
CREATE TABLE schedbot_lanes (
	orchestrator_id text COLLATE "C" NOT NULL,
	lane            bytea NOT NULL,
	owner_key       integer,          -- NULL when nobody holds it
	lease_until_ns  bigint,
	last_ns         bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (orchestrator_id, lane)
);

-- When the next waiting item is due (a retry's back-off, a delivery's
-- lease): workers sleep until then instead of polling.
CREATE INDEX schedbot_queue_waiting ON schedbot_queue (orchestrator_id, queue, not_before_ns)
	WHERE not_before_ns IS NOT NULL AND queue IN ('incoming', 'outgoing');
