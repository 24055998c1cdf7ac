-- Reach: escalation tiers and delivery times on deliveries, durable reminder/escalation timers,
-- references of reminder messages (a reply to one binds to its question), and the event outbox.
ALTER TABLE deliveries ADD COLUMN tier INTEGER NOT NULL DEFAULT 0;
ALTER TABLE deliveries ADD COLUMN delivered_at BIGINT;
ALTER TABLE deliveries ADD COLUMN reminders INTEGER NOT NULL DEFAULT 0;

-- One row per reminder or escalation tier a question will need, written with the question.
-- claimed_at is a lease (a crash between claim and send leaves it claimable again); sent_at is final.
CREATE TABLE timers (
    question_id     TEXT NOT NULL REFERENCES questions (id),
    kind            TEXT NOT NULL CHECK (kind IN ('remind', 'escalate')),
    seq             INTEGER NOT NULL,
    due_at          BIGINT NOT NULL,
    claimed_at      BIGINT,
    sent_at         BIGINT,
    PRIMARY KEY (question_id, kind, seq)
);
CREATE INDEX timers_open ON timers (sent_at, due_at);

CREATE TABLE message_refs (
    surface         TEXT NOT NULL,
    message_ref     TEXT NOT NULL,
    question_id     TEXT NOT NULL REFERENCES questions (id),
    PRIMARY KEY (surface, message_ref)
);

-- Event hooks: one row per event and receiving URL, kept until delivered or given up.
CREATE TABLE event_outbox (
    id              TEXT NOT NULL,
    url             TEXT NOT NULL,
    type            TEXT NOT NULL,
    body            TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_at         BIGINT NOT NULL,
    done_at         BIGINT,
    error           TEXT,
    PRIMARY KEY (id, url)
);
CREATE INDEX event_outbox_due ON event_outbox (done_at, next_at);
