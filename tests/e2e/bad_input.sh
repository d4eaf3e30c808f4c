#!/bin/sh
# Every class of bad input: exit status 2 and one line naming the file, [group] and key.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
base="$WEFT_SRCDIR/experiments/incast.ini"
check() { # check PATTERN CMD...: exit 2, one line on stderr matching PATTERN
    pat=$1; shift
    expect_exit 2 "$@"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "'$*': expected one line"; }
    grep -q -- "$pat" "$TMP/err" || { cat "$TMP/err" >&2; fail "'$*': no '$pat' in the message"; }
}
# unknown group and key, with suggestions
printf '[experiment]\ninclude = %s\n[swich]\nbuffer = 1MiB\n' "$base" >"$TMP/g.ini"
check "g.ini: \[swich\].*did you mean \[switch\]" "$WEFT" validate "$TMP/g.ini"
check "\[switch\] bufer: unknown key, did you mean 'buffer'" "$WEFT" run "$base" --set switch:bufer=1MiB -o "$TMP/x.h5"
# missing unit, wrong unit, out of range
check "\[topology\] link_rate:.*no unit" "$WEFT" validate "$base" --set topology:link_rate=400
check "\[switch\] latency:.*" "$WEFT" validate "$base" --set switch:latency=3MB
check "\[fabric\] mtu:.*out of range" "$WEFT" validate "$base" --set fabric:mtu=64KiB
# unknown node name
check "\[workload.incast\] receiver:.*host99" "$WEFT" validate "$base" --set workload.incast:receiver=host99
# unreadable file
check "nonexistent.ini: cannot read" "$WEFT" run "$TMP/nonexistent.ini"
# unwritable output: no file left behind
check "cannot create" "$WEFT" run -q "$base" -o "$TMP/no/such/dir/out.h5"
[ ! -e "$TMP/no/such/dir/out.h5" ] || fail "a trace was left behind"
# include cycle
printf '[experiment]\ninclude = b.ini\n' >"$TMP/a.ini"
printf '[experiment]\ninclude = a.ini\n' >"$TMP/b.ini"
check "include cycle" "$WEFT" validate "$TMP/a.ini"
# malformed --set, and a switch fault without its switch
check "GROUP:KEY=VALUE" "$WEFT" validate "$base" --set switchbuffer=1MiB
printf '[experiment]\ninclude = %s\n[fault.sw]\nkind = switch-down\nat = 0s\n' "$base" >"$TMP/f.ini"
check "\[fault.sw\] switch: required: which switch" "$WEFT" validate "$TMP/f.ini"
# fabric-specific groups and keys that would be ignored: another fabric's group is accepted
# and listed as unused (so --set fabric:kind alone switches a comparison), its keys checked
printf '[experiment]\ninclude = %s\n[infiniband]\nbuffer = 64KiB\n' "$base" >"$TMP/ib.ini"
"$WEFT" validate "$TMP/ib.ini" >"$TMP/out" || fail "another fabric's group refused"
grep -q "^  unused       \[infiniband\] (infiniband): not used with \[fabric\] kind = ethernet" "$TMP/out" || { cat "$TMP/out" >&2; fail "[infiniband] not listed as unused"; }
printf '[experiment]\ninclude = %s\n[infiniband]\nbufer = 64KiB\n' "$base" >"$TMP/ib.ini"
check "\[infiniband\] bufer: unknown key" "$WEFT" validate "$TMP/ib.ini"
ibx="$WEFT_SRCDIR/experiments/ib-incast.ini"
check "\[switch\] buffer: not used on InfiniBand" "$WEFT" validate "$ibx" --set switch:buffer=1MiB
check "\[infiniband\] buffer:.*less than one 65-credit packet" "$WEFT" validate "$ibx" --set infiniband:buffer=1KiB
check "\[infiniband\] vlarb_low:.*VL:WEIGHT" "$WEFT" validate "$ibx" --set infiniband:vlarb_low=0-64
check "\[fabric\] mtu: 1500B is not an InfiniBand MTU: expected 256B, 512B, 1024B, 2048B or 4096B" "$WEFT" validate "$ibx" --set fabric:mtu=1500B
printf '[experiment]\ninclude = %s\n[ibcc]\nenabled = yes\n' "$base" >"$TMP/cc.ini"
check "\[ibcc\] enabled:" "$WEFT" validate "$TMP/cc.ini"
check "\[ibcc\] cct:.*SHIFT:MULTIPLIER" "$WEFT" validate "$ibx" --set "ibcc:cct=0:0;9:1"
check "\[workload.incast\] sl: service levels exist on InfiniBand only" "$WEFT" validate "$base" --set workload.incast:sl=1
printf 'sw9 1 0\n' >"$TMP/sl2vl.txt"
check "sl2vl.txt:1: no node named 'sw9'" "$WEFT" validate "$ibx" --set "infiniband:sl2vl_file=$TMP/sl2vl.txt"
printf 'sw0 1 7\n' >"$TMP/sl2vl.txt"
check "sl2vl.txt:1: '7': expected at most 16 VLs" "$WEFT" validate "$ibx" --set "infiniband:sl2vl_file=$TMP/sl2vl.txt"
# endless or special files where a file is expected: refused, not read (/dev/zero grew memory
# without bound), naming the key; a FIFO with no writer does not block
mkfifo "$TMP/fifo"
printf '[experiment]\ninclude = /dev/zero\n' >"$TMP/z.ini"
check "/dev/zero: cannot read experiment file (included from .*z.ini): not a regular file" "$WEFT" validate "$TMP/z.ini"
printf '[experiment]\ninclude = %s\n' "$TMP/fifo" >"$TMP/z.ini"
check "fifo: cannot read experiment file .*not a regular file" "$WEFT" validate "$TMP/z.ini"
printf '[topology]\ngenerator = single_switch\nhosts = 4\n[workload.p]\nkind = permutation\nsize_cdf = /dev/zero\n' >"$TMP/cdf.ini"
check "cdf.ini: \[workload.p\] size_cdf: cannot read the size CDF /dev/zero: not a regular file" "$WEFT" validate "$TMP/cdf.ini"
printf '[topology]\ngenerator = single_switch\nhosts = 4\n[workload.f]\nkind = flows\nfile = /dev/zero\n' >"$TMP/fl.ini"
check "fl.ini: \[workload.f\] file: cannot read the flow list /dev/zero: not a regular file" "$WEFT" validate "$TMP/fl.ini"
printf '[topology]\ngenerator = file\nfile = /dev/zero\n[workload.p]\nkind = permutation\n' >"$TMP/tf.ini"
check "tf.ini: \[topology\] file: /dev/zero: not a regular file" "$WEFT" validate "$TMP/tf.ini"
check "\[topology\] forwarding_table: .*fifo: not a regular file" "$WEFT" validate "$base" --set "topology:forwarding_table=$TMP/fifo"
# [topology] file: named with its group and key, and resolved against the file that set it
mkdir "$TMP/sub"
printf '[topology]\ngenerator = file\n' >"$TMP/sub/gen.ini"
printf '[experiment]\ninclude = sub/gen.ini\n[topology]\nfile = nothere.topo\n[workload.p]\nkind = permutation\n' >"$TMP/top.ini"
check "top.ini: \[topology\] file: $TMP/nothere.topo: No such file" "$WEFT" validate "$TMP/top.ini"
# a bad escape, on a unit key and on a string key: one clean line, no GLib warning
printf '[experiment]\ninclude = %s\n[trace]\ninterval = 10\\0us\n' "$base" >"$TMP/e.ini"
G_DEBUG=fatal-warnings check "\[trace\] interval: the value has an invalid escape" "$WEFT" validate "$TMP/e.ini"
printf '[experiment]\ninclude = %s\n[trace]\noutput = a\\qb.h5\n' "$base" >"$TMP/e.ini"
check "\[trace\] output: the value has an invalid escape" "$WEFT" validate "$TMP/e.ini"
# an inline comment would become part of the value
printf '[experiment]\ninclude = %s\n[trace]\noutput = my run.h5  # test\n' "$base" >"$TMP/c.ini"
check "c.ini: \[trace\] output: '#' after a blank looks like an inline comment" "$WEFT" validate "$TMP/c.ini"
# control bytes of a file are shown escaped, never sent to the terminal
printf '[experiment]\ninclude = %s\n[workload.incast]\nkind = inc\033[2Jast\r\n' "$base" >"$TMP/k.ini"
check 'inc\\x1b\[2Jast' "$WEFT" validate "$TMP/k.ini"
if LC_ALL=C grep -q "$(printf '\033')" "$TMP/err"; then fail "an ESC byte reached stderr"; fi
printf '[topo\033[2J\n' >"$TMP/k.ini"
check '\\x1b\[2J' "$WEFT" validate "$TMP/k.ini"
if LC_ALL=C grep -q "$(printf '\033')" "$TMP/err"; then fail "an ESC byte reached stderr"; fi
# ... nor through an include's name or an override
printf '[experiment]\ninclude = %s;x\001\033[2J.ini\n' "$base" >"$TMP/k.ini"
check 'k.ini: \[experiment\] include: .*x\\x01\\x1b\[2J.ini.* holds control byte \\x01' \
    "$WEFT" validate "$TMP/k.ini"
if LC_ALL=C grep -q "$(printf '\033')" "$TMP/err"; then fail "an ESC byte reached stderr"; fi
check '^--set experiment:duration=1\\x1b\[2Jus: control byte \\x1b' \
    "$WEFT" validate --set "experiment:duration=1$(printf '\033')[2Jus" "$base"
if LC_ALL=C grep -q "$(printf '\033')" "$TMP/err"; then fail "an ESC byte reached stderr"; fi
echo "bad input: ok"
