import argparse
from pathlib import Path

from wordfreq.counter import count_words, ranked


def main(argv=None):
    parser = argparse.ArgumentParser(prog="wordfreq")
    parser.add_argument("file")
    parser.add_argument("--top", type=int, metavar="N")
    args = parser.parse_args(argv)
    pairs = ranked(count_words(Path(args.file).read_text()))
    if args.top is not None:
        pairs = pairs[: args.top]
    for word, count in pairs:
        print(f"{word} {count}")
