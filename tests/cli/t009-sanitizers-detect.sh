# check: sanitized-only
# t009-sanitizers-detect.sh - the sanitized build still catches what it is
# for, linked as it is to be cheap (the Makefile's SAN_EXE_LDFLAGS: ASan and
# UBSan static, the program not position-independent; its plugins without
# a runtime of their own): tests/san/probe.c, linked as build/san/baechi
# and build/san/unit-tests are, commits one error per mode, in itself, in
# libc's and libyaml's allocations and in a plugin opened with dlopen, and
# each is reported with its kind, its place and a failing exit; the clean
# run reports nothing.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

dir=$(dirname "$BAECHI")
probe=$dir/san-probe
plugin=$dir/san-probe-plugin.so
[ -x "$probe" ] && [ -f "$plugin" ] ||
    test_skip_all "no sanitized build beside $BAECHI (make SANITIZE=address,undefined san-probe)"
# the options of `make check` (scripts/run-tests.sh), stated here
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# caught MODE PATTERN...: the probe fails in MODE and its report has every PATTERN
caught() {
    m=$1
    shift
    if "$probe" "$m" "$plugin" > "$m.out" 2>&1; then
        echo "$m: exit 0, nothing caught"
        cat "$m.out"
        return 1
    fi
    for p in "$@"; do
        grep -q -- "$p" "$m.out" || { echo "$m: no '$p' in:"; cat "$m.out"; return 1; }
    done
}

test_expect_success 'a clean run, the plugin loaded: exit 0, nothing reported' '
    "$probe" clean "$plugin" > clean.out 2>&1 &&
    test ! -s clean.out
'

test_expect_success 'the program: heap overflow, leak, signed overflow' '
    caught overflow "AddressSanitizer: heap-buffer-overflow" "mode_overflow" &&
    caught leak "LeakSanitizer: detected memory leaks" "1234 byte(s)" "mode_leak" &&
    caught ub "probe.c:[0-9]*:[0-9]*: runtime error: signed integer overflow"
'

test_expect_success "the shared libraries' allocations are the runtime's: their leaks too" '
    caught libc-leak "LeakSanitizer: detected memory leaks" "in .*strdup" "mode_libc_leak" &&
    caught lib-leak "LeakSanitizer: detected memory leaks" "yaml_parser_initialize"
'

test_expect_success 'a plugin opened with dlopen: heap overflow, signed overflow, leak' '
    caught plugin-overflow "AddressSanitizer: heap-buffer-overflow" "probe_plugin_overflow" &&
    caught plugin-ub "probe_plugin.c:[0-9]*:[0-9]*: runtime error: signed integer overflow" &&
    caught plugin-leak "LeakSanitizer: detected memory leaks" "4321 byte(s)" "probe_plugin_leak"
'

test_done
