#!/usr/bin/env bash
set -u
export LC_ALL=C
script="$PWD/list_sources.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/util" "$work/include" "$work/docs"
touch "$work/src/main.c" "$work/src/util/str.c" "$work/include/str.h" "$work/src/extra.cpp" \
      "$work/docs/index.html" "$work/src/util/notes.hpp" "$work/a.c" "$work/src/main.o"
expected=$(printf 'a.c\ninclude/str.h\nsrc/main.c\nsrc/util/str.c')
got=$(bash "$script" "$work")
[ "$got" = "$expected" ] || { printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$got"; exit 1; }
echo ok
