-- Version 7: a job's name is unique when each statement ends, not at each
-- row. A transaction that hands names between jobs writes their rows in one
-- UPDATE; checked row by row, the unique index refused a swap whenever the
-- row taking a name came before the row giving it up. Only a constraint can
-- be DEFERRABLE (INITIALLY IMMEDIATE: at the end of the statement); NULL
-- names (unnamed or deleted jobs) stay distinct, as in the partial index.
DROP INDEX schedbot_jobs_name;
ALTER TABLE schedbot_jobs ADD CONSTRAINT schedbot_jobs_name UNIQUE (orchestrator_id, name) DEFERRABLE INITIALLY IMMEDIATE;
