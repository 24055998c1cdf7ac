"""Text: reading a person's reply, writing prompts and status lines, splitting long text, and the
message catalogs every word goes through. Pure: no I/O."""
