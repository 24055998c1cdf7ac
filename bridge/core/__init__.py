"""The core: the life of a question, from the ask through every surface to its one end."""
