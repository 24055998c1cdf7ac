-- A question deleted takes the rows keyed to it along (its deliveries, partial answers, timers
-- and the references of its reminder and replaced messages), in the same statement. Retention deletes a batch
-- of ended questions with one statement, one trip to the database thread; as a transaction of
-- six statements it was eight, and an ask sent meanwhile waited for all of them.
CREATE TRIGGER questions_take_along BEFORE DELETE ON questions
BEGIN
    DELETE FROM deliveries WHERE question_id = OLD.id;
    DELETE FROM partial_answers WHERE question_id = OLD.id;
    DELETE FROM timers WHERE question_id = OLD.id;
    DELETE FROM message_refs WHERE question_id = OLD.id;
END;
