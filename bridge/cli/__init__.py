"""The `askbridge` command: serving, the agent's commands, and the doctor."""
