#!/bin/sh
# tests/subbuild-configure.sh - configures one of weft's instrumented builds (`make
# check-sanitize`, `make fuzz`) from a `make distdir` copy of the sources, with the top build's
# own configure arguments.
#
#   sh tests/subbuild-configure.sh CONFIG_STATUS DIR DROP [ARG...]
#
# DIR/src holds the sources; the build goes in DIR/build, configure's output in
# DIR/configure.log.  The arguments are CONFIG_STATUS --config's, less those that match one of
# DROP's |-separated shell patterns, then the ARGs.  configure runs again only when they change
# (DIR/configure-args keeps the last ones), so a second run recompiles only what changed.
set -eu
[ $# -ge 3 ] || { sed -n '6,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
status=$1 dir=$2 drop=$3
shift 3

# The ARGs, quoted for the shell, to come after the kept arguments.
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
args=
for a; do
    args="$args $(quote "$a")"
done

eval "set x $("$status" --config)"
shift
set -f # DROP's patterns split on |, never expanded as file names
for a; do
    shift
    kept=true
    old_ifs=$IFS
    IFS='|'
    for p in $drop; do
        case $a in $p) kept=false ;; esac
    done
    IFS=$old_ifs
    if $kept; then
        set x "$@" "$a"
        shift
    fi
done
set +f
eval "set x \"\$@\" $args"
shift

cd "$dir"
printf '%s\n' "$@" > configure-args.new
if test -f build/Makefile && cmp -s configure-args.new configure-args; then
    rm -f configure-args.new
else
    echo "  CONFIG   $dir/build (output in $dir/configure.log)"
    rm -rf build configure-args
    mkdir build
    (cd build && ../src/configure "$@") > configure.log ||
        { tail -n 20 configure.log >&2; exit 1; }
    mv configure-args.new configure-args
fi
