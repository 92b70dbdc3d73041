#!/usr/bin/env bash
set -u
fail() { echo "$1"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R . "$work/project"
cd "$work/project"
out=$(bash build.sh); code=$?
[ $code -eq 0 ] || fail "a good build: expected exit 0, got $code"
case "$out" in *"build ok"*) ;; *) fail "a good build must say build ok" ;; esac
printf '#!/usr/bin/env bash\necho broken >&2\nexit 3\n' > steps/compile.sh
printf '#!/usr/bin/env bash\ntouch packaged.marker\n' > steps/package.sh
out=$(bash build.sh 2>/dev/null); code=$?
[ $code -eq 3 ] || fail "a failing step: expected exit 3, got $code"
case "$out" in *"build ok"*) fail "a failed build said build ok" ;; esac
[ ! -e packaged.marker ] || fail "the step after the failing one ran"
echo ok
