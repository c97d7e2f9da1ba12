-- schedbot schema. Every table is keyed by orchestrator_id first: several
-- orchestrators (and several schedbot processes) share one database, and
-- every query names the orchestrator it is for. A caller's strings (ids,
-- names) are kept as their bytes (bytea): any byte is allowed, NUL and
-- invalid UTF-8 included, and they sort bytewise as in the bolt store
-- (ULIDs and executionIds are time-ordered that way). Instants are Unix
-- nanoseconds (bigint): exact, as the records hold them (timestamptz keeps
-- microseconds). A schema change is a new numbered file after this one.

-- A job's definition. Its status (the fields its runs change) has a row of
-- its own (schedbot_job_status), so that firing a job rewrites ~200 bytes
-- and touches the due index, not the whole job: a burst changes 10,000
-- statuses and no definition. A definition changes only with its status
-- row, the status locked first.
CREATE TABLE schedbot_jobs (
	orchestrator_id text COLLATE "C" NOT NULL,
	job_id          bytea NOT NULL,
	name            bytea,                     -- NULL when unnamed or deleted
	created_by      bytea NOT NULL,            -- createdBy.senderId
	channel_id      bytea NOT NULL,            -- targetRef.channelId
	body            bytea NOT NULL,            -- the definition as JSON
	PRIMARY KEY (orchestrator_id, job_id),
	-- A name is unique when each statement ends, not at each row: a
	-- transaction that hands names between jobs writes their rows in one
	-- UPDATE, which a row-by-row check refuses whenever the row taking a
	-- name comes before the row giving it up. Only a constraint can be
	-- DEFERRABLE; NULL names stay distinct.
	CONSTRAINT schedbot_jobs_name UNIQUE (orchestrator_id, name) DEFERRABLE INITIALLY IMMEDIATE
);
-- Listings and counts read an orchestrator's rows through the primary key
-- and sort them: one index less for every dispatch to keep up to date.

CREATE TABLE schedbot_job_status (
	orchestrator_id text COLLATE "C" NOT NULL,
	job_id          bytea NOT NULL,
	state           text NOT NULL,
	state_rank      smallint NOT NULL,         -- listing order of the state
	next_run_ns     bigint,                    -- enabled jobs only
	status          bytea NOT NULL,            -- the status fields as JSON
	PRIMARY KEY (orchestrator_id, job_id)
);
CREATE INDEX schedbot_job_status_due ON schedbot_job_status (orchestrator_id, next_run_ns, job_id) WHERE next_run_ns IS NOT NULL;

CREATE TABLE schedbot_runs (
	orchestrator_id text COLLATE "C" NOT NULL,
	execution_id    bytea NOT NULL,
	job_id          bytea NOT NULL,
	body            bytea NOT NULL,
	PRIMARY KEY (orchestrator_id, execution_id)
);
-- An executionId starts with its jobId and "@", so a job's runs are one
-- range of the primary key; no index of their own.

-- The queue. A claimed item carries a lease: the owner that claimed it,
-- until when, and the instance key of its claimer (a session advisory lock
-- that process holds while it lives), so that a dead claimer's items are
-- taken back at once and a live one's write is fenced. An outgoing item
-- names its delivery lane (store.LaneOf: one channel's deliveries), so that
-- a delivery round reads the lanes it may take and passes over a busy
-- lane's backlog.
CREATE TABLE schedbot_queue (
	orchestrator_id text COLLATE "C" NOT NULL,
	item_id         bytea NOT NULL,
	queue           text NOT NULL,
	not_before_ns   bigint,
	updated_ns      bigint NOT NULL,
	body            bytea NOT NULL,
	lease_owner     text COLLATE "C",
	lease_until     timestamptz,
	lease_key       integer,
	lane            bytea,
	PRIMARY KEY (orchestrator_id, item_id)
);
CREATE INDEX schedbot_queue_stage ON schedbot_queue (orchestrator_id, queue, item_id);
CREATE INDEX schedbot_queue_lease ON schedbot_queue (orchestrator_id, lease_until) WHERE queue = 'processing';
-- When the next waiting item is due (a retry's back-off, a delivery's
-- lease): workers sleep until then instead of polling.
CREATE INDEX schedbot_queue_waiting ON schedbot_queue (orchestrator_id, queue, not_before_ns)
	WHERE not_before_ns IS NOT NULL AND queue IN ('incoming', 'outgoing');
CREATE INDEX schedbot_queue_lanes ON schedbot_queue (orchestrator_id, lane, item_id) WHERE queue = 'outgoing';

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

-- The recorded outcomes of idempotent calls (store.Request), so that a
-- retried call with the same key gets its first result back.
CREATE TABLE schedbot_requests (
	orchestrator_id text COLLATE "C" NOT NULL,
	key             bytea NOT NULL,
	created_ns      bigint NOT NULL,
	body            bytea NOT NULL,
	PRIMARY KEY (orchestrator_id, key)
);
CREATE INDEX schedbot_requests_at ON schedbot_requests (orchestrator_id, created_ns, key);

-- What conversations remember between messages (store.Conversation: an
-- open question, the job last spoken of), so that an answer reaching
-- another schedbot process still completes the question.
CREATE TABLE schedbot_conversations (
	orchestrator_id text COLLATE "C" NOT NULL,
	key             bytea NOT NULL,
	updated_ns      bigint NOT NULL,
	body            bytea NOT NULL,
	PRIMARY KEY (orchestrator_id, key)
);
CREATE INDEX schedbot_conversations_at ON schedbot_conversations (orchestrator_id, updated_ns, key);

-- HTTP API tokens (store.Token), by the hash of the token; the token
-- itself is never stored.
CREATE TABLE schedbot_tokens (
	orchestrator_id text COLLATE "C" NOT NULL,
	hash            bytea NOT NULL,
	id              text COLLATE "C" NOT NULL,
	body            bytea NOT NULL,
	PRIMARY KEY (orchestrator_id, hash)
);
