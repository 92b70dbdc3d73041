#!/usr/bin/env bash
# Print the total number of lines in the .txt files of a folder.
total=0
for f in $(ls $1/*.txt); do
  n=$(wc -l < $f)
  total=$((total + n))
done
echo $total
