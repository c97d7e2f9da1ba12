-- Version 5: what conversations remember between messages
-- (store.Conversation: an open question, the job last spoken of), so that
-- an answer reaching another schedbot process still completes the question.
CREATE TABLE schedbot_conversations (
	orchestrator_id text COLLATE "C" NOT NULL,
	key             bytea NOT NULL,
	updated_ns      bigint NOT NULL,
	body            bytea NOT NULL,
	PRIMARY KEY (orchestrator_id, key)
);
CREATE INDEX schedbot_conversations_at ON schedbot_conversations (orchestrator_id, updated_ns, key);
