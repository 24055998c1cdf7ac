-- An ask is one statement: a row inserted into `asks` writes the question, a `sending` delivery
-- per surface (`surfaces`: a JSON array, in order) and its timers (`timers`: a JSON array of
-- [kind, seq, due_at]), all or nothing. With its NOTIFY in the same statement it is one round
-- trip, where a transaction was five (BEGIN, three statements and the NOTIFY, COMMIT).
CREATE VIEW asks AS
    SELECT id, agent, session, request, created_at, expires_at, NULL::text AS surfaces,
           NULL::text AS timers
    FROM questions;

CREATE FUNCTION askbridge_ask() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO questions (id, agent, session, request, status, created_at, expires_at)
    VALUES (NEW.id, NEW.agent, NEW.session, NEW.request, 'pending', NEW.created_at,
            NEW.expires_at);
    INSERT INTO deliveries (question_id, surface, position, state, updated_at)
    SELECT NEW.id, s.surface, s.n - 1, 'sending', NEW.created_at
    FROM jsonb_array_elements_text(NEW.surfaces::jsonb) WITH ORDINALITY AS s (surface, n);
    INSERT INTO timers (question_id, kind, seq, due_at)
    SELECT NEW.id, t ->> 0, (t ->> 1)::integer, (t ->> 2)::bigint
    FROM jsonb_array_elements(NEW.timers::jsonb) AS t;
    RETURN NEW;
END
$$;

CREATE TRIGGER asks_insert INSTEAD OF INSERT ON asks
    FOR EACH ROW EXECUTE FUNCTION askbridge_ask();
