-- An ask is one statement: a row inserted into `asks` writes the question, a `sending` delivery
-- per surface (`surfaces`: a JSON array, in order) and its timers (`timers`: a JSON array of
-- [kind, seq, due_at]), all or nothing. One statement is one trip to the database thread,
-- where a transaction of three statements was four.
CREATE VIEW asks AS
    SELECT id, agent, session, request, created_at, expires_at, NULL AS surfaces, NULL AS timers
    FROM questions;

CREATE TRIGGER asks_insert INSTEAD OF INSERT ON asks
BEGIN
    INSERT INTO questions (id, agent, session, request, status, created_at, expires_at)
    VALUES (NEW.id, NEW.agent, NEW.session, NEW.request, 'pending', NEW.created_at,
            NEW.expires_at);
    INSERT INTO deliveries (question_id, surface, position, state, updated_at)
    SELECT NEW.id, value, key, 'sending', NEW.created_at FROM json_each(NEW.surfaces);
    INSERT INTO timers (question_id, kind, seq, due_at)
    SELECT NEW.id, json_extract(value, '$[0]'), json_extract(value, '$[1]'),
           json_extract(value, '$[2]')
    FROM json_each(NEW.timers);
END;
