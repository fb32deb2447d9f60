#!/bin/sh
# check-functions.sh [ROOT] - the size limits of docs/style.md §1 over the suite's
# C sources, *.c and *.h of core/ sim/ placers/ workloads/ calibrate/
# results/ api/ cli/ (tests, generated files and the CUDA C++ of
# calibrate/*.cu aside: nvcc builds it only on a GPU machine):
#
#   a function is at most $FUNC_MAX_LINES lines (150), counted from the first
#   line of its signature to its closing brace, both included;
#   a file is at most $FILE_MAX_LINES lines (1,000).
#
# Functions are found the way the checked-in .clang-format writes them
# (BreakBeforeBraces: Linux): a signature starts at column 0 (it may span
# lines, the continuations indented, and start with static or a return type
# on the same line), the body opens with "{" alone at column 0 and closes at
# the next "}" at column 0; a struct, enum or initializer opens its brace at
# the end of a line and is not a function.  The name is the identifier before
# the signature's first "(" (after __attribute__((...)) is dropped).
#
# Prints one line per violation:
#   file:line: function NAME is N lines (max 150)
#   file:1: file is N lines (max 1000)
# then "functions: N violations"; exits 1 when there is any.
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
c_name_awk=$(cat "$(dirname "$0")/c-name.awk")
cd "$root"
func_max=${FUNC_MAX_LINES:-150}
file_max=${FILE_MAX_LINES:-1000}

list=$(mktemp)
trap 'rm -f "$list"' EXIT
for part in core sim placers workloads calibrate results api cli; do
    [ -d "$part" ] || continue
    find "$part" -type f \( -name '*.c' -o -name '*.h' \) \
        ! -name '*.pb-c.*' | sort
done > "$list"

if [ ! -s "$list" ]; then
    echo "functions: 0 violations"
    exit 0
fi

# shellcheck disable=SC2046 # file names of the tree have no spaces
awk -v func_max="$func_max" -v file_max="$file_max" "$c_name_awk"'
function file_done() {
    if (file != "" && lines > file_max) {
        printf "%s:1: file is %d lines (max %d)\n", file, lines, file_max
        n++
    }
}
FNR == 1 {
    file_done()
    file = FILENAME
    infunc = 0
    sig = ""
}
{ lines = FNR }
infunc {
    if ($0 ~ /^}/) {
        len = FNR - start + 1
        if (len > func_max) {
            printf "%s:%d: function %s is %d lines (max %d)\n", file, start, fname, len, func_max
            n++
        }
        infunc = 0
        sig = ""
    }
    next
}
/^{/ {
    if (sig != "") {
        infunc = 1
        fname = name_of(sig)
    }
    sig = ""
    next
}
# a signature starts at column 0 with an identifier (not a comment, a
# directive or a closing brace) and continues on indented lines
/^[A-Za-z_]/ {
    sig = $0
    start = FNR
    if ($0 ~ /;[ \t]*$/) {
        sig = ""
    }
    next
}
/^[ \t]+[^ \t]/ {
    if (sig != "") {
        sig = sig " " $0
        if ($0 ~ /;[ \t]*$/) {
            sig = ""
        }
    }
    next
}
{ sig = "" }
END {
    file_done()
    printf "functions: %d violations\n", n
    exit n > 0
}
' $(cat "$list")
