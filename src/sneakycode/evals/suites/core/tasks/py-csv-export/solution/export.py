import csv
import io


def to_csv(rows):
    """Rows (lists of strings) as CSV text."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()
