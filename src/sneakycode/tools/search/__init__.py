"""grep_files and find_files: ripgrep, with a pure-Python fallback that gives identical results."""
