def to_csv(rows):
    """Rows (lists of strings) as CSV text."""
    return "".join(",".join(row) + "\n" for row in rows)
