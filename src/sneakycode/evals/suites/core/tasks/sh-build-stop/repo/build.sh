#!/usr/bin/env bash
# Build the project: every step in order.
cd "$(dirname "$0")"
echo "compiling"
bash steps/compile.sh
echo "packaging"
bash steps/package.sh
echo "build ok"
