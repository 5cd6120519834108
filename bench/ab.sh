#!/usr/bin/env bash
# ab.sh compares parse+check's growth from 10k to 100k steps between test
# binaries of this module (go test -c), e.g. one built at an older commit
# and one at HEAD. Each round runs every binary once, 10k then 100k in one
# process; the growth is the median over rounds of one round's 100k time
# over the same round's 10k time (paired, as docs/performance.md does).
#
#   go test -c -o /tmp/new.test . && git worktree add /tmp/old <commit> &&
#   cp bench_test.go /tmp/old/bench/ && (cd /tmp/old/bench && go test -c -o /tmp/old.test .)
#   ./ab.sh 8 /tmp/old.test /tmp/new.test
set -euo pipefail
rounds=${1:?usage: ab.sh ROUNDS BINARY...}
shift
[ $# -gt 0 ] || { echo "usage: ab.sh ROUNDS BINARY..." >&2; exit 2; }
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for r in $(seq "$rounds"); do
	for b in "$@"; do
		"$b" -test.run '^$' -test.bench 'BenchmarkParse/(10k|100k)/planc-check' -test.count 1 |
			awk -v b="$b" -v r="$r" '/^Benchmark/ { print b, r, ($1 ~ /\/100k\//) ? "100k" : "10k", $3 }'
	done
done >"$raw"
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for b in "$@"; do
	t10=$(awk -v b="$b" '$1 == b && $3 == "10k" { print $4 }' "$raw" | median)
	t100=$(awk -v b="$b" '$1 == b && $3 == "100k" { print $4 }' "$raw" | median)
	ratios=$(awk -v b="$b" '$1 == b { t[$2, $3] = $4; rs[$2] = 1 } END { for (r in rs) if (t[r, "10k"] > 0) print t[r, "100k"] / t[r, "10k"] }' "$raw" | sort -g)
	med=$(printf '%s\n' "$ratios" | median)
	printf '%s: 10k %.1f ms, 100k %.1f ms (medians); 100k/10k paired %.2fx (rounds %s)\n' "$b" \
		"$(awk -v t="$t10" 'BEGIN { print t / 1e6 }')" "$(awk -v t="$t100" 'BEGIN { print t / 1e6 }')" "$med" \
		"$(printf '%s\n' "$ratios" | awk '{ printf "%s%.1f", (NR > 1 ? " " : ""), $1 }')"
done
