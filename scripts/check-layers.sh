#!/bin/sh
# check-layers.sh [ROOT] - two rules of the layout (README.md "Layout") over
# the suite's C sources.
#
# 1. The include rule, over every #include "..." line:
#
#   core       includes nothing of the suite
#   sim        core
#   placers    core, sim
#   workloads  core, sim
#   calibrate  core, sim, placers, workloads
#   results    core, sim, placers, workloads
#   api        every library part, and include/ (the public header)
#   cli        anything but api (the program uses the libraries directly)
#
# No part includes cli but cli.  A quoted include without a directory is a
# file generated into build/gen (onnx.pb-c.h), allowed where it is used.
#
# 2. Silent libraries (docs/style.md §2): no code of core/ sim/ placers/
# workloads/ calibrate/ results/ api/ calls printf, vprintf, puts, putchar,
# perror, exit, abort or isatty, names stderr, or writes to stdout
# (fprintf(stdout, ...), fputs(s, stdout), ...).  Comments and string
# literals do not count.  _exit() is not flagged: a forked child ends with it
# (results/sweep_local.c, results/plot.c).  A library returns an error code
# and leaves its message (core/err.h); only cli/ prints and exits.  The
# documented exceptions, one function each, are the list `exceptions` below.
#
# Prints one line per violation ("file:line: part 'x' includes 'y'",
# "file:line: library part 'x' calls 'exit'"), then "includes: N
# violations", "silent: N violations" and "layers: N violations" (their
# sum); exits 1 when there is any.
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
c_name_awk=$(cat "$(dirname "$0")/c-name.awk")
cd "$root"

# file:function  why it may print or abort
exceptions='
core/err.c:err_warn  the default sink of warnings when the library user set none (err_set_warn_handler)
core/file_out.c:file_write_atomic  the path "-" is the caller asking for standard output (the -o - of the CLI, baechi_placement_write with NULL): a result asked for, not a message
core/err.c:err_bug   BUG() itself: an impossible state prints file:line and aborts
'

list=$(mktemp)
trap 'rm -f "$list"' EXIT
for part in core sim placers workloads calibrate results api cli include; do
    [ -d "$part" ] || continue
    find "$part" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort
done > "$list"

if [ ! -s "$list" ]; then
    printf 'includes: 0 violations\nsilent: 0 violations\nlayers: 0 violations\n'
    exit 0
fi

# shellcheck disable=SC2046 # file names of the tree have no spaces
awk -v exceptions="$exceptions" "$c_name_awk"'
BEGIN {
    allowed["core"] = ""
    allowed["sim"] = "core"
    allowed["placers"] = "core sim"
    allowed["workloads"] = "core sim"
    allowed["calibrate"] = "core sim placers workloads"
    allowed["results"] = "core sim placers workloads"
    allowed["api"] = "core sim placers workloads calibrate results include"
    allowed["cli"] = "core sim placers workloads calibrate results"
    allowed["include"] = ""
    split("core sim placers workloads calibrate results api", libs, " ")
    for (i in libs) {
        library[libs[i]] = 1
    }
    n = split(exceptions, ex, "\n")
    for (i = 1; i <= n; i++) {
        if (split(ex[i], w, " ") > 0) {
            excepted[w[1]] = 1
        }
    }
}
# the line without its comments and string and character literals
# (a comment may span lines: in_comment)
function code_of(s,    out, i, c, j, q) {
    out = ""
    while (s != "") {
        if (in_comment) {
            i = index(s, "*/")
            if (i == 0) {
                return out
            }
            s = substr(s, i + 2)
            in_comment = 0
            continue
        }
        i = match(s, /\/\*|\/\/|["\047]/)
        if (i == 0) {
            return out s
        }
        out = out substr(s, 1, i - 1)
        c = substr(s, i, 2)
        if (c == "/*") {
            in_comment = 1
            s = substr(s, i + 2)
        } else if (c == "//") {
            return out
        } else {
            q = substr(s, i, 1)
            s = substr(s, i + 1)
            # skip to the closing quote, over escaped characters
            while (s != "") {
                j = match(s, "[\\\\" q "]")
                if (j == 0) {
                    s = ""
                } else if (substr(s, j, 1) == "\\") {
                    s = substr(s, j + 2)
                } else {
                    s = substr(s, j + 1)
                    break
                }
            }
            out = out q q
        }
    }
    return out
}
FNR == 1 {
    part = FILENAME
    sub(/\/.*/, "", part)
    ok = " " part " " allowed[part] " "
    in_comment = 0
    infunc = 0
    fname = ""
    sig = ""
}
# rule 1
/^[ \t]*#[ \t]*include[ \t]*"/ {
    inc = $0
    sub(/^[^"]*"/, "", inc)
    sub(/".*/, "", inc)
    if (index(inc, "/") > 0) {
        dep = inc
        sub(/\/.*/, "", dep)
        if (index(ok, " " dep " ") == 0) {
            printf "%s:%d: part \047%s\047 includes \047%s\047\n", FILENAME, FNR, part, inc
            n_inc++
        }
    }
}
# the function a line is in (the functions as clang-format writes them:
# scripts/check-functions.sh)
{
    if (infunc) {
        if ($0 ~ /^}/) {
            infunc = 0
            sig = ""
        }
    } else if ($0 ~ /^{/) {
        if (sig != "") {
            infunc = 1
            fname = name_of(sig)
        }
        sig = ""
    } else if ($0 ~ /^[A-Za-z_]/) {
        sig = ($0 ~ /;[ \t]*$/) ? "" : $0
    } else if ($0 ~ /^[ \t]+[^ \t]/) {
        if (sig != "") {
            sig = ($0 ~ /;[ \t]*$/) ? "" : sig " " $0
        }
    } else {
        sig = ""
    }
}
# rule 2
library[part] {
    code = code_of($0)
    what = ""
    if (match(code, /(^|[^A-Za-z0-9_.>])(printf|vprintf|puts|putchar|perror|exit|abort|isatty)[ \t]*\(/)) {
        what = substr(code, RSTART, RLENGTH)
        sub(/^[^A-Za-z]/, "", what)
        sub(/[ \t]*\($/, "", what)
    } else if (match(code, /[A-Za-z_]+[ \t]*\([ \t]*stderr/)) {
        what = substr(code, RSTART, RLENGTH)
    } else if (match(code, /(^|[^A-Za-z0-9_])stderr([^A-Za-z0-9_]|$)/)) {
        what = "stderr"
    } else if (code ~ /(fprintf|vfprintf|fflush)[ \t]*\([ \t]*stdout/ || code ~ /,[ \t]*stdout[ \t]*\)/) {
        what = "stdout"
    }
    if (what != "" && !((FILENAME ":" (infunc ? fname : "")) in excepted)) {
        printf "%s:%d: library part \047%s\047 calls \047%s\047\n", FILENAME, FNR, part, what
        n_silent++
    }
}
END {
    printf "includes: %d violations\n", n_inc
    printf "silent: %d violations\n", n_silent
    printf "layers: %d violations\n", n_inc + n_silent
    exit (n_inc + n_silent) > 0
}
' $(cat "$list")
