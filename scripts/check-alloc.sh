#!/bin/sh
# check-alloc.sh [ROOT] - one allocator (core/alloc.h): no raw malloc, calloc,
# realloc, reallocarray, strdup, strndup, asprintf, vasprintf or
# open_memstream call in the libraries and the program (core/ sim/ placers/
# workloads/ calibrate/ results/ api/ cli/, .c .h .cu) outside core/alloc.c.
# Through the wrapper a failed allocation always sets its message ("out of
# memory (N bytes)") and counts in the allocation-failure build
# (scripts/alloc-fail.sh).  free() stays free().
#
# Comments and string literals are not searched.  Prints one line per
# violation ("file:line: raw 'malloc(' (use core/alloc.h)") and
# "alloc: N violations"; exits 1 when there is any.
#
# Documented exceptions (file: reason):
#   core/alloc.c                 the wrapper itself
#   (not calls, so not searched) the third-party libraries (libyaml, SQLite,
#                                GLPK, protobuf-c) and the C library's
#                                own buffers allocate with their own malloc;
#                                calibrate/bench_cuda.cu's C++ containers and
#                                `new` use operator new (which throws)
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

exceptions="core/alloc.c"

out=$(mktemp)
for part in core sim placers workloads calibrate results api cli; do
    [ -d "$part" ] || continue
    find "$part" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort
done | while read -r f; do
    case " $exceptions " in
    *" $f "*) continue ;;
    esac
    # Blank out comments and string/char literals (keeping the line count),
    # then report each raw call not preceded by an identifier character,
    # '.', '>' (a member) or '_'.
    perl -0777 -ne '
        s{(/\*.*?\*/)|(//[^\n]*)|("(?:\\.|[^"\\\n])*")|('"'"'(?:\\.|[^'"'"'\\\n])*'"'"')}
         { my $m = $&; $m =~ s/[^\n]//g; $m }gse;
        my $n = 0;
        for my $l (split /\n/, $_, -1) {
            $n++;
            while ($l =~ /(?<![\w.>])(malloc|calloc|realloc|reallocarray|strdup|strndup|asprintf|vasprintf|open_memstream)\s*\(/g) {
                print "$ARGV:$n: raw \x27$1(\x27 (use core/alloc.h)\n";
            }
        }' "$f"
done > "$out"
n=$(wc -l < "$out" | tr -d ' ')
cat "$out"
rm -f "$out"
echo "alloc: $n violations"
[ "$n" -eq 0 ]
