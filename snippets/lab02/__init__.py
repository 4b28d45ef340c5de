"""Lab 02: a custom operator end to end: register, check, dispatch, compile."""
