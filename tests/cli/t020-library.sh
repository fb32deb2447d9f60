# check: once serial
# The installed library: `make install` into a staging directory gives
# libbaechi.a, libbaechi.so with its soname, the public header, baechi.pc and
# the Python module; a C program built with pkg-config against it and the
# installed Python module give the numbers of `baechi run --json`.
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

lib="$d/usr/local/lib"
test_expect_success 'the library, header, pkg-config file and data are installed' - <<'EOF'
for f in bin/baechi include/baechi.h lib/libbaechi.a lib/libbaechi.so lib/libbaechi.so.1 \
    lib/pkgconfig/baechi.pc share/baechi/clusters/paper-4gpu-pcie.yaml \
    share/baechi/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml share/baechi/workloads/gnmt_v2/NOTICE; do
    [ -e "$d/usr/local/$f" ] || { echo "not installed: $f"; exit 1; }
done
EOF

test_expect_success 'libbaechi.so.1 has its soname' - <<'EOF'
objdump -p "$lib/libbaechi.so.1" | grep -q 'SONAME *libbaechi.so.1$' || { echo "soname"; exit 1; }
EOF

# Only the public API is exported.
test_expect_success 'only the public API is exported' - <<'EOF'
nm -D --defined-only "$lib/libbaechi.so.1" | awk '$2 ~ /^[TDBR]$/ {sub(/@.*/, "", $3); print $3}' > "$TMPDIR_TEST/syms"
[ -s "$TMPDIR_TEST/syms" ] || { echo "no symbols exported"; exit 1; }
if grep -v '^baechi_' "$TMPDIR_TEST/syms"; then echo "exported beyond baechi_*"; exit 1; fi
grep -q '^baechi_place$' "$TMPDIR_TEST/syms"
EOF

# The example program, built as a user would, against the staged install.
export PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$d"
test_expect_success 'the example builds with pkg-config, linked to the installed library' - <<'EOF'
flags=$(pkg-config --cflags --libs baechi)
${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$TMPDIR_TEST/ex" \
    "$TOP/examples/place_and_simulate.c" $flags
LD_LIBRARY_PATH="$lib" ldd "$TMPDIR_TEST/ex" | grep -q "libbaechi.so.1 => $lib/" ||
    { echo "example not linked to the installed shared library"; exit 1; }
EOF

test_expect_success 'the example gives the numbers of baechi run --json' - <<'EOF'
expect_exit 0 env LD_LIBRARY_PATH="$lib" "$TMPDIR_TEST/ex" "$GNMT" paper-4gpu-pcie m-etf 0.5
cp "$TMPDIR_TEST/out" "$TMPDIR_TEST/ex.out"
expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-etf --memory-fraction 0.5 --json
python3 - "$TMPDIR_TEST/out" "$TMPDIR_TEST/ex.out" <<'PY'
import json, sys
ref = json.load(open(sys.argv[1]))
lines = [l.split() for l in open(sys.argv[2]) if "step_us=" in l]
assert len(lines) == 2, lines
for model, *kv in lines:
    got = dict(x.split("=") for x in kv)
    want = ref["sim"][model]
    assert int(got["step_us"]) == want["step_us"], (model, got, want["step_us"])
    assert got["oom"] == ("1" if want["oom"] else "0")
    assert [int(x) for x in got["peak_bytes"].split(",")] == [d["peak_bytes"] for d in want["devices"]]
print("example agrees with baechi run --json")
PY
EOF

# A bad input: the library's message, exit 2; infeasible: exit 3.
test_expect_success 'the example on a bad input: the library message, exit 2' '
    expect_exit 2 env LD_LIBRARY_PATH="$lib" "$TMPDIR_TEST/ex" /nonexistent.yaml paper-4gpu-pcie m-etf
    expect_grep "/nonexistent.yaml" "$TMPDIR_TEST/err"
'

test_expect_success 'the example on an infeasible placement: exit 3' '
    expect_exit 3 env LD_LIBRARY_PATH="$lib" "$TMPDIR_TEST/ex" "$GNMT" paper-4gpu-pcie m-etf 0.01
    expect_grep "needs [0-9.]* MiB, device [0-9] has [0-9.]* MiB free" "$TMPDIR_TEST/err"
'

# The installed Python module (not the source tree's) over the installed library.
site=$(cd "$d" && find usr -path '*dist-packages/baechi/__init__.py' | head -n 1)
test_expect_success 'the python module is installed' '
    [ -n "$site" ] || { echo "python module not installed"; exit 1; }
'

site="$d/$(dirname "$(dirname "$site")")"
cd "$TMPDIR_TEST"
test_expect_success 'the installed python module gives the numbers of baechi run --json' - <<'EOF'
"$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-etf --memory-fraction 0.5 --json > "$TMPDIR_TEST/ref.json"
expect_exit 0 env PYTHONPATH="$site" BAECHI_LIB="$lib/libbaechi.so.1" python3 -c "
import baechi, json
assert baechi.__file__.startswith('$site'), baechi.__file__
w = baechi.load_workload('$GNMT'); c = baechi.cluster('paper-4gpu-pcie')
r = baechi.simulate(w, c, baechi.place(w, c, 'm-etf', memory_fraction=0.5))
ref = json.load(open('$TMPDIR_TEST/ref.json'))['sim']['timed']
assert r.step_us == ref['step_us'], (r.step_us, ref['step_us'])
assert r.peak_bytes == [d['peak_bytes'] for d in ref['devices']]
print('python', r.step_us)
"
expect_grep '^python [0-9]+$' "$TMPDIR_TEST/out"
EOF

test_done
