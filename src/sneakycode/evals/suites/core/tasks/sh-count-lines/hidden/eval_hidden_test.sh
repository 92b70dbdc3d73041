#!/usr/bin/env bash
set -u
script="$PWD/count_lines.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/my notes" "$work/empty"
printf 'a\nb\nc\n' > "$work/my notes/first file.txt"
printf 'd\ne\n' > "$work/my notes/second.txt"
printf '1\n2\n3\n4\n5\n' > "$work/my notes/skip.md"
got=$(bash "$script" "$work/my notes" 2>&1)
[ "$got" = "5" ] || { echo "expected 5, got: $got"; exit 1; }
got=$(bash "$script" "$work/empty" 2>&1)
[ "$got" = "0" ] || { echo "expected 0 for a folder without .txt files, got: $got"; exit 1; }
echo ok
