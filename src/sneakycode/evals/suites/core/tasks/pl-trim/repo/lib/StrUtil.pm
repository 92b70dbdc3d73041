package StrUtil;
use strict;
use warnings;
use Exporter 'import';
our @EXPORT_OK = ('trim');

sub trim {
    my ($s) = @_;
    $s =~ s/^\s+//;
    return $s;
}

1;
