#!/usr/bin/env perl
# Sum one column of a CSV file (no quoted fields), chosen by its header.
use strict;
use warnings;

my ($file, $name) = @ARGV;
die "usage: sum_column.pl FILE NAME\n" unless defined $name;
open my $fh, '<', $file or die "cannot open $file: $!\n";
chomp(my $header = <$fh>);
my @names = split /,/, $header;
my ($index) = grep { $names[$_] eq $name } 0 .. $#names;
die "no column $name\n" unless defined $index;
my $sum = 0;
while (my $line = <$fh>) {
    chomp $line;
    my @fields = split /,/, $line;
    $sum += $fields[$index + 1];
}
print "$sum\n";
