# check: slow once serial
# What `make install` puts in place works outside the source tree: the man
# page renders, `baechi bench` finds the installed GNMT profile (it looked
# for data/ in the current directory), the installed sweep runs (dry run),
# presets resolve.  Staged with DESTDIR; BAECHI_DATADIR points the staged
# program at its staged data.
. "$TOP/tests/cli/lib.sh"
d="$TMPDIR_TEST/stage"
# NO_BUILD=1: the build as it is, relinking nothing: other tests run
# build/baechi meanwhile (a relink after a changed `git describe --dirty`
# left it "Permission denied" to t830 under 3 jobs; issue 34).  The build's
# files must be the same before and after.
test_expect_success 'setup: make install into a staging directory, the build untouched' - <<'EOF'
before=$(cd "$TOP" && ls -l --time-style=+%s.%N build/baechi build/libbaechi.a build/libbaechi.so)
make -C "$TOP" --no-print-directory -s install NO_BUILD=1 DESTDIR="$d" PREFIX=/usr/local \
    > "$TMPDIR_TEST/install.log" 2>&1 || { cat "$TMPDIR_TEST/install.log"; exit 1; }
after=$(cd "$TOP" && ls -l --time-style=+%s.%N build/baechi build/libbaechi.a build/libbaechi.so)
[ "$before" = "$after" ] || { printf 'the build changed:\n%s\n%s\n' "$before" "$after"; exit 1; }
EOF

test_expect_success 'the program, man page, workloads and sweeps are installed' - <<'EOF'
for f in bin/baechi share/man/man1/baechi.1 share/baechi/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml \
    share/baechi/workloads/gnmt_v2/NOTICE share/baechi/sweeps/paper.yaml; do
    [ -e "$d/usr/local/$f" ] || { echo "not installed: $f"; exit 1; }
done
EOF

test_expect_success 'the man page renders, with every command' - <<'EOF'
if command -v man > /dev/null; then
    LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$d/usr/local/share/man/man1/baechi.1" \
        > "$TMPDIR_TEST/man.txt" 2> "$TMPDIR_TEST/man.err"
    test ! -s "$TMPDIR_TEST/man.err" || { cat "$TMPDIR_TEST/man.err"; exit 1; }
    expect_grep "^EXIT STATUS" "$TMPDIR_TEST/man.txt"
    # every command of the top-level help has its entry
    "$BAECHI" --help | sed -n 's/^    \([a-z]*\)  .*/\1/p' | while read -r c; do
        grep -Eq "^       $c( |$)" "$TMPDIR_TEST/man.txt" || { echo "man page lacks '$c'"; exit 1; }
    done
fi
EOF

mkdir -p "$TMPDIR_TEST/elsewhere"
cd "$TMPDIR_TEST/elsewhere"
export BAECHI_DATADIR="$d/usr/local/share/baechi"
B="$d/usr/local/bin/baechi"
test_expect_success 'the installed program reads the installed workload' '
    expect_exit 0 "$B" workload info "$BAECHI_DATADIR/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml"
'

test_expect_success 'the installed sweep runs (dry run)' '
    expect_exit 0 "$B" sweep "$BAECHI_DATADIR/sweeps/paper.yaml" --db r.db --dry-run
'

test_expect_success 'bench finds the installed GNMT profile' '
    expect_exit 0 "$B" bench --quick
    expect_grep "gnmt" "$TMPDIR_TEST/out"
'

test_done
