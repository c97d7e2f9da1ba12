-- Version 3: the recorded outcomes of idempotent calls (store.Request), so
-- that a retried call with the same key gets its first result back.
CREATE TABLE schedbot_requests (
	orchestrator_id text COLLATE "C" NOT NULL,
	key             bytea NOT NULL,
	created_ns      bigint NOT NULL,
	body            bytea NOT NULL,
	PRIMARY KEY (orchestrator_id, key)
);
CREATE INDEX schedbot_requests_at ON schedbot_requests (orchestrator_id, created_ns, key);
