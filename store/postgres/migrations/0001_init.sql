-- schedbot schema, version 1. Every table is keyed by orchestrator_id first:
-- several orchestrators (and several schedbot processes) share one database,
-- and every query names the orchestrator it is for. A caller's strings (ids,
-- names) are kept as their bytes (bytea): any byte is allowed, NUL and
-- invalid UTF-8 included, and they sort bytewise as in the bolt store (ULIDs
-- and executionIds are time-ordered that way). Instants are Unix
-- nanoseconds (bigint): exact, as the records hold them (timestamptz keeps
-- microseconds).

CREATE TABLE schedbot_jobs (
	orchestrator_id text COLLATE "C" NOT NULL,
	job_id          bytea NOT NULL,
	name            bytea,                     -- NULL when unnamed or deleted
	state           text NOT NULL,
	state_rank      smallint NOT NULL,         -- listing order of the state
	next_run_ns     bigint,                    -- enabled jobs only
	created_by      bytea NOT NULL,            -- createdBy.senderId
	channel_id      bytea NOT NULL,            -- targetRef.channelId
	body            bytea NOT NULL,            -- the job as JSON
	PRIMARY KEY (orchestrator_id, job_id)
);
CREATE UNIQUE INDEX schedbot_jobs_name ON schedbot_jobs (orchestrator_id, name) WHERE name IS NOT NULL;
CREATE INDEX schedbot_jobs_due ON schedbot_jobs (orchestrator_id, next_run_ns, job_id) WHERE next_run_ns IS NOT NULL;
-- Listings and counts read an orchestrator's rows through the primary key
-- and sort them: one index less for every dispatch to keep up to date.

CREATE TABLE schedbot_runs (
	orchestrator_id text COLLATE "C" NOT NULL,
	execution_id    bytea NOT NULL,
	job_id          bytea NOT NULL,
	body            bytea NOT NULL,
	PRIMARY KEY (orchestrator_id, execution_id)
);
-- An executionId starts with its jobId and "@", so a job's runs are one
-- range of the primary key; no index of their own.

CREATE TABLE schedbot_queue (
	orchestrator_id text COLLATE "C" NOT NULL,
	item_id         bytea NOT NULL,
	queue           text NOT NULL,
	not_before_ns   bigint,
	updated_ns      bigint NOT NULL,
	body            bytea NOT NULL,
	PRIMARY KEY (orchestrator_id, item_id)
);
CREATE INDEX schedbot_queue_stage ON schedbot_queue (orchestrator_id, queue, item_id);

CREATE TABLE schedbot_audit (
	orchestrator_id text COLLATE "C" NOT NULL,
	seq             bigint NOT NULL,
	at_ns           bigint NOT NULL,
	job_id          bytea NOT NULL,
	sender_id       bytea NOT NULL,
	sender          bytea NOT NULL,
	body            bytea NOT NULL,  -- the bytes the hash covers
	hash            bytea NOT NULL,
	PRIMARY KEY (orchestrator_id, seq)
);
CREATE INDEX schedbot_audit_job ON schedbot_audit (orchestrator_id, job_id, seq);
-- Events are appended in time order: a BRIN index finds "since" ranges for
-- almost nothing per append.
CREATE INDEX schedbot_audit_at ON schedbot_audit USING brin (at_ns);

-- The head of each orchestrator's chain. Appending locks this row, so
-- concurrent writers append one after another and the chain stays one.
CREATE TABLE schedbot_audit_head (
	orchestrator_id text COLLATE "C" PRIMARY KEY,
	seq             bigint NOT NULL,
	hash            bytea NOT NULL
);
