-- Version 9: the outgoing queue indexed by delivery lane (store.LaneOf: one
-- channel's deliveries), so that a delivery round reads the lanes it may
-- take and passes over a busy lane's backlog. Items queued before this
-- version have no lane and are read apart, by the old way.
ALTER TABLE schedbot_queue ADD COLUMN lane bytea;
CREATE INDEX schedbot_queue_lanes ON schedbot_queue (orchestrator_id, lane, item_id) WHERE queue = 'outgoing';
