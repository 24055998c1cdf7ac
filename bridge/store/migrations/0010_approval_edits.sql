-- Edits under quorum (issue 33): an edit proposes new arguments. `arguments` holds them (NULL:
-- the arguments as asked), `payload_hash` moves to their hash, and only votes cast on that hash
-- count toward the decision.
ALTER TABLE approvals ADD COLUMN arguments TEXT;
