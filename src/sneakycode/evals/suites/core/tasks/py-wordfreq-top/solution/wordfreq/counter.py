import re
from collections import Counter


def count_words(text):
    """How often each lower-cased word occurs."""
    return Counter(re.findall(r"[a-z']+", text.lower()))


def ranked(counts):
    """(word, count) pairs, most frequent first, ties alphabetical."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))
