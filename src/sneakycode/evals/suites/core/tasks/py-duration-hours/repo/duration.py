import re

UNITS = {"s": 1, "m": 60}


def parse_duration(text):
    """Seconds in a duration like '90s' or '5m'."""
    match = re.fullmatch(r"(\d+)([sm])", text.strip())
    if not match:
        raise ValueError(f"bad duration: {text!r}")
    return int(match.group(1)) * UNITS[match.group(2)]
