"""The process's plumbing: configuration, logging, TLS, retry schedules, signatures, plugins."""
