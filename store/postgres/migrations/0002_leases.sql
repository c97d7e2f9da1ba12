-- Version 2: a claimed queue item carries a lease, so that several schedbot
-- processes can share one queue: the owner that claimed it and until when.
ALTER TABLE schedbot_queue ADD COLUMN lease_owner text COLLATE "C";
ALTER TABLE schedbot_queue ADD COLUMN lease_until timestamptz;
CREATE INDEX schedbot_queue_lease ON schedbot_queue (orchestrator_id, lease_until) WHERE queue = 'processing';
