-- Version 8: HTTP API tokens (store.Token), by the hash of the token;
-- the token itself is never stored.
CREATE TABLE schedbot_tokens (
	orchestrator_id text COLLATE "C" NOT NULL,
	hash            bytea NOT NULL,
	id              text COLLATE "C" NOT NULL,
	body            bytea NOT NULL,
	PRIMARY KEY (orchestrator_id, hash)
);
