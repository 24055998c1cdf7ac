-- Finalization is claimed with a lease: a process that dies between its claim and the edit
-- leaves the claim to lapse (or, on a single-process store, to be released at the next start)
-- and the edit is made again. `finalized` is set once the edit was made or given up.
ALTER TABLE deliveries ADD COLUMN finalize_claimed_at BIGINT;
