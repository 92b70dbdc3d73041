#!/usr/bin/env bash
# Print the total number of lines in the .txt files of a folder.
dir=$1
total=0
for f in "$dir"/*.txt; do
  [ -f "$f" ] || continue
  n=$(wc -l < "$f")
  total=$((total + n))
done
echo "$total"
