-- Finding the question a reply or tap belongs to is an indexed lookup, however long the history.
-- deliveries (surface, state) matched every past delivery on a conversation, and planners took it
-- to find that conversation's pending question: they now start from the few pending questions
-- (questions_pending) and reach each one's delivery by its key.
DROP INDEX deliveries_surface;
-- Prompts still to finalize (restart, and replicas' periodic look) without reading the rest.
CREATE INDEX deliveries_unfinalized ON deliveries (question_id) WHERE finalized = 0;
