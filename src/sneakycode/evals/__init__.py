"""`sneakycode eval`: a versioned suite of small coding tasks run through batch, scored per task (docs/models.md)."""
