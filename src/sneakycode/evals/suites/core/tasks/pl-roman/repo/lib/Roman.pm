package Roman;
use strict;
use warnings;
use Exporter 'import';
our @EXPORT_OK = ('to_roman');

sub to_roman {
    my ($n) = @_;
    my @map = ([1000, 'M'], [500, 'D'], [100, 'C'], [50, 'L'], [10, 'X'], [5, 'V'], [1, 'I']);
    my $out = '';
    for my $pair (@map) {
        my ($value, $letters) = @$pair;
        while ($n >= $value) {
            $out .= $letters;
            $n -= $value;
        }
    }
    return $out;
}

1;
