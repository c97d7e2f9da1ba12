-- Version 6: a job's status (the fields its runs change) moves to a row of
-- its own, so that firing a job rewrites ~200 bytes and touches the due
-- index, not the whole job and its primary key: a burst changes 10,000
-- statuses and no definition. A dispatch locks the status rows; a
-- definition changes only with its status row, status locked first.
CREATE TABLE schedbot_job_status (
	orchestrator_id text COLLATE "C" NOT NULL,
	job_id          bytea NOT NULL,
	state           text NOT NULL,
	state_rank      smallint NOT NULL,         -- listing order of the state
	next_run_ns     bigint,                    -- enabled jobs only
	status          bytea NOT NULL,            -- the status fields as JSON
	PRIMARY KEY (orchestrator_id, job_id)
);
-- A job's whole record is a valid status record too (its other fields are
-- passed over when read): the rows move as they are.
INSERT INTO schedbot_job_status (orchestrator_id, job_id, state, state_rank, next_run_ns, status)
	SELECT orchestrator_id, job_id, state, state_rank, next_run_ns, body FROM schedbot_jobs;
DROP INDEX schedbot_jobs_due;
CREATE INDEX schedbot_job_status_due ON schedbot_job_status (orchestrator_id, next_run_ns, job_id) WHERE next_run_ns IS NOT NULL;
ALTER TABLE schedbot_jobs DROP COLUMN state, DROP COLUMN state_rank, DROP COLUMN next_run_ns;
