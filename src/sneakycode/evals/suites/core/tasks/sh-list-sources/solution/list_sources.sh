#!/usr/bin/env bash
# C sources and headers under a folder, relative to it, sorted.
cd "$1" && find . -type f \( -name '*.c' -o -name '*.h' \) | sed 's|^\./||' | LC_ALL=C sort
