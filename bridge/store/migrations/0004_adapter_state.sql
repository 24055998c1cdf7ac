-- Durable key/value state an adapter keeps (Matrix sync position, Web Push subscriptions, …), per platform.
CREATE TABLE adapter_state (
    platform        TEXT NOT NULL,
    key             TEXT NOT NULL,
    value           TEXT NOT NULL,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (platform, key)
);
