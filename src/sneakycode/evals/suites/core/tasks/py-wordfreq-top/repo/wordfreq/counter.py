import re
from collections import Counter


def count_words(text):
    """How often each lower-cased word occurs."""
    return Counter(re.findall(r"[a-z']+", text.lower()))
