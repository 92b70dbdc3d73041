use strict;
use warnings;
use Test::More;
use Roman qw(to_roman);

my %cases = (1 => 'I', 4 => 'IV', 9 => 'IX', 14 => 'XIV', 40 => 'XL', 90 => 'XC', 400 => 'CD',
             900 => 'CM', 1994 => 'MCMXCIV', 2024 => 'MMXXIV', 3999 => 'MMMCMXCIX');
for my $n (sort { $a <=> $b } keys %cases) {
    is(to_roman($n), $cases{$n}, "to_roman($n)");
}
for my $bad (0, -1, 4000) {
    ok(!eval { to_roman($bad); 1 }, "to_roman($bad) dies");
}
done_testing();
