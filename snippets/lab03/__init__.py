"""Lab 03: compile the head, read its kernel, survey the patterns."""
