use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);

my $dir = tempdir(CLEANUP => 1);
open my $out, '>', "$dir/data.csv" or die;
print $out "item,amount,qty\ntea,10.5,2\ncake,32,1\n";
close $out;
is(`$^X sum_column.pl $dir/data.csv amount`, "42.5\n", "amount");
is(`$^X sum_column.pl $dir/data.csv qty`, "3\n", "qty");
done_testing();
