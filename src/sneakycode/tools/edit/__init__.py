"""str_replace and patch_apply: exact, tolerant matching; a rejected edit leaves the file byte-identical."""
