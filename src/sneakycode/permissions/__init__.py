"""allow | ask | deny before anything runs: rules, the one decision, the one gate every caller uses."""
