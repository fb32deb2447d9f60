#!/bin/sh
# check-statics.sh [ARCHIVE...] - the libraries keep no mutable file-level or
# global state (issue 20): include/baechi.h promises that different handles
# may be used from different threads, so a writable static is a data race
# waiting for two threads (m-TOPO once sorted through one).
#
# Lists every data/bss symbol (nm classes b B d D) of the archives (default
# build/libbaechi.a) with its type and section (`nm -f sysv`), and flags the
# writable ones.  Not flagged:
#   - thread-locals (type TLS, sections .tbss/.tdata): one copy per thread;
#   - sections .data.rel.ro*: `static const` tables that hold pointers land
#     there under -fPIC, written only by the dynamic loader (RELRO), then
#     read-only; the compiler puts nothing that the program writes there;
#   - what a sanitizer adds (names __odr_asan.*, __asan_*, __ubsan_*,
#     __tsan_*, __sancov*): its own bookkeeping, in the sanitized builds
#     that tests/cli/t007 also checks under `make check`;
#   - the allowlist below: state that must be process-wide, each entry with
#     its reason and guarded so that threads do not race on it.
# Prints one line per violation ("member: symbol (class, section)") and
# "statics: N writable"; exits 1 when there is any, 2 on a usage error.
# Only archives and objects: a shared library also holds the C runtime's own
# statics (crtbeginS.o's completed.0), which are none of ours.
set -eu

# OBJECT SYMBOL REASON: the object (archive member) and the symbol name
# without the compiler's ".N" suffix of function-level statics.
allowlist='
err.o err_warn_lock          the process-wide warning handler of baechi_set_warning_handler (include/baechi.h says process-wide); the mutex itself
err.o err_warn_handler       that handler; read and written only under err_warn_lock
err.o err_warn_ctx           its context; read and written only under err_warn_lock
err.o err_warn_idle          condition of err_warn_lock: the setter waits for calls of the old handler
err.o err_warn_gen           generation of the handler; read and written only under err_warn_lock
err.o err_warn_active        calls of a handler running, by generation; only under err_warn_lock
plot_cleanup.o guard         the temporary files of a plot and the pid of gnuplot for its signal handler; held by one plot at a time (guard_taken)
plot_cleanup.o guard_taken   atomic flag: which plot holds guard
file_out.o file_out_pending  temporary files being written, removed by a signal that ends the process: a handler can only reach static state; fixed size, slots claimed atomically
baechi.o once                pthread_once controls of baechi_version and baechi_placers
baechi.o version_buf         baechi_version text, written once under pthread_once, then read-only
baechi.o placer_names        baechi_placers list, written once under pthread_once, then read-only
db_schema.o schema_once             pthread_once control of db_schema_sql
db_schema.o schema_all              db_schema_sql list, written once under pthread_once, then read-only
'

root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$root/build/libbaechi.a"
for a in "$@"; do
    if [ ! -r "$a" ]; then
        echo "check-statics: cannot read '$a'" >&2
        exit 2
    fi
done

out=$(mktemp)
trap 'rm -f "$out"' EXIT
# sysv lines: name|value|class|type|size|line|section
for a in "$@"; do
    LC_ALL=C nm -f sysv "$a"
done | awk -F'|' -v allow="$allowlist" '
function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
BEGIN {
    n = split(allow, lines, "\n")
    for (i = 1; i <= n; i++) {
        if (split(lines[i], f, /[ \t]+/) >= 2) {
            ok[f[1] " " f[2]] = 1
        }
    }
}
/^Symbols from / {
    member = $0
    sub(/^Symbols from /, "", member)
    sub(/:$/, "", member)
    if (match(member, /\[[^]]*\]$/)) {
        member = substr(member, RSTART + 1, RLENGTH - 2)
    } else {
        sub(/.*\//, "", member)
    }
    next
}
NF >= 7 {
    name = trim($1); class = trim($3); type = trim($4); section = trim($7)
    if (class !~ /^[bBdD]$/ || type == "TLS" || section ~ /^\.t(bss|data)/ ||
        section ~ /^\.data\.rel\.ro/) {
        next
    }
    if (name ~ /^__(odr_asan\.|asan_|ubsan_|tsan_|sancov)/) {
        next
    }
    base = name
    sub(/\.[0-9]+$/, "", base)
    if ((member " " base) in ok) {
        next
    }
    printf "%s: %s (%s, %s)\n", member, name, class, section
}' > "$out"
cat "$out"
n=$(wc -l < "$out")
echo "statics: $((n)) writable"
[ "$n" -eq 0 ]
