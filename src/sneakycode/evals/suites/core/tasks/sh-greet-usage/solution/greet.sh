#!/usr/bin/env bash
usage="usage: greet.sh NAME"
case "${1-}" in
  "") echo "$usage" >&2; exit 2 ;;
  -h|--help) echo "$usage"; exit 0 ;;
esac
echo "Hello, $1!"
