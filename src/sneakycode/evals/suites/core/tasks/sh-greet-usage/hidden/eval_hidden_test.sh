#!/usr/bin/env bash
set -u
fail() { echo "$1"; exit 1; }
[ "$(bash greet.sh Ann)" = "Hello, Ann!" ] || fail "greeting changed"
out=$(bash greet.sh 2>/dev/null); code=$?
[ $code -eq 2 ] || fail "no argument: expected exit 2, got $code"
[ -z "$out" ] || fail "no argument: nothing expected on stdout, got: $out"
err=$(bash greet.sh 2>&1 >/dev/null)
[ "$err" = "usage: greet.sh NAME" ] || fail "no argument: expected the usage on stderr, got: $err"
for flag in -h --help; do
  out=$(bash greet.sh "$flag"); code=$?
  [ $code -eq 0 ] || fail "$flag: expected exit 0, got $code"
  [ "$out" = "usage: greet.sh NAME" ] || fail "$flag: expected the usage on stdout, got: $out"
done
echo ok
