-- Approvals (issue 33). An approval rides on a backing question with the same id: the question
-- carries delivery, reminders, escalation and the one-pending-per-session rule; `approval` on it
-- holds the approval's request (what every prompt of it shows).
ALTER TABLE questions ADD COLUMN approval TEXT;

-- The approval's own state: its request, the payload hash decisions are bound to, the policy
-- as it stood when asked, and once decided its result (approved / rejected / no_answer).
CREATE TABLE approvals (
    id              TEXT PRIMARY KEY,
    agent           TEXT NOT NULL,
    session         TEXT NOT NULL,
    request         TEXT NOT NULL,
    payload_hash    TEXT NOT NULL,
    policy          TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'no_answer')),
    result          TEXT,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    decided_at      BIGINT
);
CREATE INDEX approvals_session ON approvals (agent, session, created_at);
CREATE INDEX approvals_ended ON approvals (decided_at) WHERE status <> 'pending';

-- One vote per person (or per platform user no [[people]] entry names): the key is the voter.
CREATE TABLE approval_votes (
    approval_id     TEXT NOT NULL,
    voter           TEXT NOT NULL,
    surface         TEXT NOT NULL,
    user_ref        TEXT NOT NULL,
    decision        TEXT NOT NULL CHECK (decision IN ('approve', 'reject')),
    reason          TEXT,
    arguments       TEXT,
    payload_hash    TEXT NOT NULL,
    rule            TEXT,
    at              BIGINT NOT NULL,
    PRIMARY KEY (approval_id, voter)
);

-- "Allow for 1 h": agent + tool + payload hash (NULL: any arguments), until expires_at.
CREATE TABLE approval_rules (
    id              TEXT PRIMARY KEY,
    agent           TEXT NOT NULL,
    tool            TEXT NOT NULL,
    payload_hash    TEXT,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    created_by      TEXT NOT NULL,
    approval_id     TEXT,
    revoked_at      BIGINT
);
CREATE INDEX approval_rules_match ON approval_rules (agent, tool, expires_at);

-- The hash-chained audit log: hash = SHA-256 of the canonical entry, `prev` included. Only
-- retention deletes (oldest first), leaving the last deleted entry's seq and hash as the anchor
-- the new head chains from.
CREATE TABLE audit (
    seq             BIGINT PRIMARY KEY,
    at              BIGINT NOT NULL,
    kind            TEXT NOT NULL,
    approval_id     TEXT,
    data            TEXT NOT NULL,
    prev            TEXT NOT NULL,
    hash            TEXT NOT NULL
);
CREATE INDEX audit_at ON audit (at);
CREATE TABLE audit_anchor (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    seq             BIGINT NOT NULL,
    hash            TEXT NOT NULL
);
