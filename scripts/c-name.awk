# c-name.awk - name_of(line): the name of the function a C signature line
# declares ("?" when none); shared by check-functions.sh and check-layers.sh,
# which prepend it to their awk programs.
function name_of(s,    i, pre) {
    gsub(/__attribute__[ \t]*\(\([^)]*\)\)/, "", s)
    i = index(s, "(")
    if (i == 0) {
        return "?"
    }
    pre = substr(s, 1, i - 1)
    sub(/[ \t]+$/, "", pre)
    if (match(pre, /[A-Za-z_][A-Za-z0-9_]*$/) == 0) {
        return "?"
    }
    return substr(pre, RSTART, RLENGTH)
}
