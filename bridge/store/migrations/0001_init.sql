-- Questions are the timeline too: every question is kept, with its summary, without time-based deletion.
CREATE TABLE questions (
    id              TEXT PRIMARY KEY,
    agent           TEXT NOT NULL,
    session         TEXT NOT NULL,
    request         TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'answered', 'no_answer')),
    reason          TEXT,
    result          TEXT,
    answered_surface TEXT,
    answered_user   TEXT,
    summary         TEXT,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    resolved_at     BIGINT
);
-- At most one pending question per (agent, session), enforced by the database itself.
CREATE UNIQUE INDEX questions_one_pending ON questions (agent, session) WHERE status = 'pending';
CREATE INDEX questions_timeline ON questions (agent, session, created_at);
CREATE INDEX questions_pending ON questions (status, expires_at);

-- A delivery row exists before its prompt is sent; message_ref is filled in once it is.
CREATE TABLE deliveries (
    question_id     TEXT NOT NULL REFERENCES questions (id),
    surface         TEXT NOT NULL,
    position        INTEGER NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('sending', 'delivered', 'failed')),
    message_ref     TEXT,
    error           TEXT,
    finalized       INTEGER NOT NULL DEFAULT 0,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (question_id, surface)
);
CREATE INDEX deliveries_surface ON deliveries (surface, state);
CREATE INDEX deliveries_ref ON deliveries (surface, message_ref);

-- Answers to some questions of a multi-question prompt, kept until the rest arrive.
CREATE TABLE partial_answers (
    question_id     TEXT NOT NULL REFERENCES questions (id),
    question_key    TEXT NOT NULL,
    answers         TEXT NOT NULL,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (question_id, question_key)
);
