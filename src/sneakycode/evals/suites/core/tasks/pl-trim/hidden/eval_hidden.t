use strict;
use warnings;
use Test::More;
use StrUtil qw(trim);

is(trim("  hello  "), "hello", "both ends");
is(trim("\t\nhi there\n"), "hi there", "tabs and newlines");
is(trim("a  b"), "a  b", "inside kept");
is(trim(""), "", "empty");
done_testing();
