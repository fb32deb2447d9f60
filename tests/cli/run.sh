#!/bin/sh
# run.sh BAECHI - runs every tests/cli/t*.sh against the program BAECHI, two
# at a time (CHECK_JOBS), with scripts/run-tests.sh --cli: one line per test,
# the output of a failed one, the slowest five, and the closing line
# "N passed, N failed, N skipped".  Each test is a POSIX shell script run
# with $BAECHI (the program), $TOP (the repository root) and $TMPDIR_TEST (a
# fresh directory); exit 0 = passed, 77 = skipped (after a line
# "skipped: REASON"), anything else = failed.
set -u
exec sh "$(dirname "$0")/../../scripts/run-tests.sh" --cli "${1:?usage: run.sh BAECHI}"
