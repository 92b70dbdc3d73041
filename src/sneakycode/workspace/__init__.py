"""The only place a model-supplied path becomes a real path; text decoding and atomic writes."""
