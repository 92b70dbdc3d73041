import argparse
from pathlib import Path

from wordfreq.counter import count_words


def main(argv=None):
    parser = argparse.ArgumentParser(prog="wordfreq")
    parser.add_argument("file")
    args = parser.parse_args(argv)
    counts = count_words(Path(args.file).read_text())
    for word, count in counts.most_common():
        print(f"{word} {count}")
