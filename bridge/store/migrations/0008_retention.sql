-- Retention deletes ended questions oldest first, with everything keyed to them, by index.
CREATE INDEX questions_ended ON questions (resolved_at) WHERE status <> 'pending';
-- Reminder messages by their question (they are found by their own key on the answer path).
CREATE INDEX message_refs_question ON message_refs (question_id);
-- Delivered or given-up event bodies (they hold a question's answers) go once older than
-- `keep`. Rows from before this column use when they were delivered; a given-up one's age is
-- unknown (-1), so it goes at the first pass.
ALTER TABLE event_outbox ADD COLUMN enqueued_at BIGINT;
UPDATE event_outbox SET enqueued_at = COALESCE(done_at, next_at);
CREATE INDEX event_outbox_enqueued ON event_outbox (enqueued_at);
