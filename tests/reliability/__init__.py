"""The reliability suite: tries to lose a person's notes (concurrency, crashes, races, bad input)."""
