import argparse


def build_parser():
    parser = argparse.ArgumentParser(prog="greet")
    parser.add_argument("--name", default="world", help="who to greet")
    parser.add_argument("--shout", action="store_true", help="upper-case the greeting")
    parser.add_argument("--repeat", type=int, default=1, metavar="N", help="say it N times")
    parser.add_argument("--punctuation", default="!", help="how the greeting ends")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    text = f"Hello, {args.name}{args.punctuation}"
    for _ in range(args.repeat):
        print(text.upper() if args.shout else text)


if __name__ == "__main__":
    main()
