#!/bin/sh
# rename-array-mem.sh [ROOT] - issue 34 item 3's rename, done mechanically:
# the allocators that core/array.h kept under their older names become the
# one allocator's (core/alloc.h):
#
#     array_malloc(n, e)   ->  mem_alloc_array(n, e)
#     array_calloc(n, e)   ->  mem_calloc(n, e)
#     array_strdup(s)      ->  mem_strdup(s)
#
# and the three wrappers leave core/array.h and core/array.c, which keep
# what is an array: ARRAY_RESERVE (array_reserve_) and FREE_AND_NULL.
#
# Over every tracked C, C++ and CUDA file of ROOT (default: this checkout)
# except core/array.{h,c}: the calls are renamed (whole words only); a file
# that now calls mem_* without including core/alloc.h gets the include
# (in place of core/array.h when it used nothing else of it, beside it
# otherwise, else before its first #include "core/...", else after its own
# header); then clang-format (when installed) formats the files changed.
# Docs and comments that name the old functions are renamed too.
#
# Idempotent: a second run changes nothing.  Prints the files changed and
# "rename: N files"; then run `make -j2`, scripts/check-*.sh and the tests.
# Exit 1 when a use of an old name is left (it prints where).
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

old='array_malloc|array_calloc|array_strdup'
changed=$(mktemp)
trap 'rm -f "$changed"' EXIT

git ls-files -- '*.c' '*.h' '*.cu' '*.cpp' '*.md' |
    grep -v -e '^core/array\.[ch]$' |
    while IFS= read -r f; do
        grep -Eq "\\b($old)\\b" "$f" || continue
        sed -E -i -e 's/\barray_malloc\b/mem_alloc_array/g' \
            -e 's/\barray_calloc\b/mem_calloc/g' \
            -e 's/\barray_strdup\b/mem_strdup/g' "$f"
        echo "$f" >> "$changed"
        case "$f" in
        *.md) continue ;;
        esac
        grep -q '^#include "core/alloc.h"' "$f" && continue
        [ "$f" = core/alloc.h ] && continue
        if grep -q '^#include "core/array.h"' "$f"; then
            if grep -Eq '\b(ARRAY_RESERVE|array_reserve_|FREE_AND_NULL)\b' "$f"; then
                sed -i 's|^#include "core/array.h"|#include "core/alloc.h"\n#include "core/array.h"|' "$f"
            else
                sed -i 's|^#include "core/array.h"|#include "core/alloc.h"|' "$f"
            fi
        elif grep -q '^#include "core/' "$f"; then
            awk '!done && /^#include "core\// { print "#include \"core/alloc.h\""; done = 1 }
                 { print }' "$f" > "$f.tmp" && mv "$f.tmp" "$f"
        else
            awk '{ print } !done && /^#include / {
                     print ""; print "#include \"core/alloc.h\""; done = 1 }' "$f" > "$f.tmp" &&
                mv "$f.tmp" "$f"
        fi
    done

# The wrappers themselves (and the note that introduced them).
if grep -q 'array_malloc' core/array.h; then
    python3 - <<'PY'
import re
h = open("core/array.h").read()
h = re.sub(r"\n/\* The allocators below are core/alloc\.h's .*?\*/\n", "\n", h, flags=re.S)
for name in ("array_calloc", "array_malloc", "array_strdup"):
    h = re.sub(r"\n/\*[^/]*?\*/\n[^\n]*\b%s\([^;]*;\n" % name, "\n", h, flags=re.S)
open("core/array.h", "w").write(h)
c = open("core/array.c").read()
for name in ("array_calloc", "array_malloc", "array_strdup"):
    c = re.sub(r"\n[^\n]*\b%s\([^)]*\)\n\{.*?\n\}\n" % name, "\n", c, flags=re.S)
open("core/array.c", "w").write(c)
PY
    echo core/array.h >> "$changed"
    echo core/array.c >> "$changed"
fi

if command -v clang-format > /dev/null 2>&1; then
    grep -v '\.md$' "$changed" | sort -u | xargs -r clang-format -i
fi
sort -u "$changed"
echo "rename: $(sort -u "$changed" | wc -l) files"

left=$(git grep -n -w -E "$old" -- '*.c' '*.h' '*.cu' '*.cpp' '*.md' || true)
if [ -n "$left" ]; then
    echo "rename: old names left:"
    echo "$left"
    exit 1
fi
