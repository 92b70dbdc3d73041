"""Command lines as bash runs them: parsing (tree-sitter-bash), words, wrappers, and the command policy."""
