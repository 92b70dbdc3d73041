#!/usr/bin/env bash
# C sources and headers under a folder, relative to it, sorted.
cd "$1" && find . -type f -name '*.[ch]*' | sed 's|^\./||' | sort
