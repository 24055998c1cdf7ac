"""Platform adapters; each registers an `AdapterPlugin` under `askbridge.adapters` in pyproject.toml."""
