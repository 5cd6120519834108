#!/usr/bin/env bash
# Runs the side-by-side benchmarks of this module, summarises them with
# benchstat, profiles what misses its target (or, when nothing does, the
# figure closest to its target), and rewrites
# ../docs/performance.md from that summary. Needs only Go (and the module
# proxy, for the peers and benchstat). Every figure in the document comes
# from this run's output in $BENCH_OUT.
#
# Environment:
#   BENCH_COUNT         samples of each benchmark (default 10; 1 or 2 for a
#                       quick look), taken in that many rounds of -count 1
#   BENCH_TIME          -benchtime (default: go test's, 1s)
#   BENCH_E2E_TIME      -benchtime of the process benchmarks (default 20x)
#   BENCH_MAX_LOAD      wait for the 1-minute load average to drop to this
#                       before starting (default 2; 0 = do not wait)
#   BENCH_WAIT          how long to wait for it, in seconds (default 300)
#   BENCH_PROFILE       0 skips profiling (default 1: every missed target, or
#                       when none misses, the figure closest to its target)
#   BENCH_PROFILE_TIME  -benchtime of each profiling run (default 5s)
#   BENCH_OUT           raw output, profiles and the run's facts (default bench/out)
#   BENCH_DOC           the document to write (default docs/performance.md)
#   BENCH_RENDER_ONLY   1 rewrites the document from the last run in
#                       $BENCH_OUT without running anything (after editing
#                       bench/analysis.md, say)
set -euo pipefail

cd "$(dirname "$0")"
here=$(pwd)
count=${BENCH_COUNT:-10}
benchtime=${BENCH_TIME:-}
e2etime=${BENCH_E2E_TIME:-20x}
max_load=${BENCH_MAX_LOAD:-2}
wait_max=${BENCH_WAIT:-300}
profile=${BENCH_PROFILE:-1}
profile_time=${BENCH_PROFILE_TIME:-5s}
out=${BENCH_OUT:-$here/out}
doc=${BENCH_DOC:-$here/../docs/performance.md}
render_only=${BENCH_RENDER_ONLY:-0}
# benchstat, pinned so that a fresh machine summarises the same way.
perf_version=v0.0.0-20260908200009-22c9c6c9d4da

log() { printf 'run.sh: %s\n' "$*" >&2; }
load1() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }
# cpu_ticks prints the machine's total CPU ticks and the ticks stolen by the
# hypervisor (the steal column of /proc/stat).
cpu_ticks() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t, $9 }' /proc/stat 2>/dev/null || echo "0 0"; }
above() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }

mkdir -p "$out"
out=$(cd "$out" && pwd)

log "building benchstat $perf_version and the document generator"
GOBIN="$out" go install "golang.org/x/perf/cmd/benchstat@$perf_version"
go build -mod=mod -o "$out/perfdoc" ./cmd/perfdoc

summarise() {
	(cd "$out" && ./benchstat bench.txt >benchstat.txt && ./benchstat -format csv bench.txt >benchstat.csv 2>/dev/null)
}

if [ "$render_only" != 1 ]; then
	rm -f "$out"/*.prof "$out"/*.txt "$out"/*.csv "$out"/facts.sh
	# The tree the benchmarks are built from (others may commit during the run).
	commit=unknown
	if git -C "$here/.." rev-parse --short HEAD >/dev/null 2>&1; then
		commit=$(git -C "$here/.." rev-parse --short HEAD)
		if [ -n "$(git -C "$here/.." status --porcelain 2>/dev/null)" ]; then
			commit="$commit, with uncommitted changes in the tree"
		fi
	fi
	log "building the benchmarks"
	go vet -mod=mod ./...
	go test -mod=mod -c -o "$out/bench.test" .
	# The vm package's own scheduling benchmark, from the main module.
	(cd "$here/.." && go test -c -o "$out/vm.test" ./vm)
	# The main module's process benchmarks: planc run of 200 (and of one)
	# `true` steps beside xargs and a bare Go program. They need root or a
	# delegated cgroup and skip without; the document then leaves them out.
	(cd "$here/.." && go test -c -o "$out/e2e.test" ./e2e)
	# Sanity: the three engines agree and the generated plans are clean.
	(cd "$here" && "$out/bench.test" -test.run '^(TestCondAgree|TestGenPlan)$' -test.count 1 >/dev/null) ||
		{ log "the bench module's tests fail"; exit 1; }

	if [ "$max_load" != 0 ]; then
		deadline=$((SECONDS + wait_max))
		while above "$(load1)" "$max_load" && [ $SECONDS -lt $deadline ]; do
			log "load average $(load1) is over $max_load; waiting (up to ${wait_max}s in all)"
			sleep 15
		done
	fi
	load_before=$(load1)
	read -r ticks0 steal0 < <(cpu_ticks)
	date=$(date -u '+%Y-%m-%d %H:%M UTC')

	# Sample the load while the benchmarks run.
	: >"$out/load.txt"
	(while :; do load1 >>"$out/load.txt"; sleep 5; done) &
	sampler=$!
	trap 'kill "$sampler" 2>/dev/null || true' EXIT

	# -count N runs each benchmark N times in a row, so a burst of other work
	# lands on all the samples of one figure and none of its peer's. Instead,
	# run every benchmark once per round, N rounds: a burst then costs each
	# figure a sample or two, which benchstat's median absorbs.
	args=(-test.run '^$' -test.bench '^(BenchmarkCond|BenchmarkParse|BenchmarkSchedule|BenchmarkHandoff)$'
		-test.count 1 -test.benchmem -test.timeout 0)
	vmargs=(-test.run '^$' -test.bench '^BenchmarkRun$' -test.count 1 -test.benchmem -test.timeout 0)
	e2eargs=(-test.run '^$' -test.bench '^BenchmarkRun(1|200)True$' -test.count 1 -test.benchtime "$e2etime" -test.timeout 0)
	[ -n "$benchtime" ] && args+=(-test.benchtime "$benchtime") && vmargs+=(-test.benchtime "$benchtime")
	log "running the benchmarks, $count rounds (load average $load_before)"
	: >"$out/bench.txt"
	for round in $(seq 1 "$count"); do
		log "round $round of $count (load average $(load1))"
		(cd "$here" && "$out/bench.test" "${args[@]}") | tee -a "$out/bench.txt" >&2
		(cd "$here/../vm" && "$out/vm.test" "${vmargs[@]}") | tee -a "$out/bench.txt" >&2
		(cd "$here/../e2e" && "$out/e2e.test" "${e2eargs[@]}") | tee -a "$out/bench.txt" >&2
	done
	kill "$sampler" 2>/dev/null || true
	wait "$sampler" 2>/dev/null || true
	trap - EXIT
	load_after=$(load1)
	read -r ticks1 steal1 < <(cpu_ticks)
	steal=$(awk -v t="$((ticks1 - ticks0))" -v s="$((steal1 - steal0))" 'BEGIN { if (t > 0) printf "%.1f%%", 100 * s / t; else print "?" }')
	load_during=$(awk 'NF { n++; s += $1; if (n == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
		END { if (n) printf "%.2f on average (%.2f to %.2f, %d samples)", s / n, lo, hi, n; else print "?" }' "$out/load.txt")

	cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
	cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
	# The run's facts, for the document (and for BENCH_RENDER_ONLY).
	{
		printf 'f_cpu=%q\n' "${cpu:-$(uname -m)}"
		printf 'f_cores=%q\n' "$cores (GOMAXPROCS ${GOMAXPROCS:-$cores})"
		printf 'f_go=%q\n' "$(go version)"
		printf 'f_date=%q\n' "$date"
		printf 'f_count=%q\n' "$count"
		printf 'f_commit=%q\n' "$commit"
		printf 'f_load_before=%q\n' "$load_before"
		printf 'f_load_during=%q\n' "$load_during"
		printf 'f_load_after=%q\n' "$load_after"
		printf 'f_steal=%q\n' "$steal"
		printf 'f_peers=%q\n' "$(go list -mod=mod -m -f '{{.Path}} {{.Version}}' github.com/expr-lang/expr cel.dev/cel-go | paste -sd, - | sed 's/,/, /g')"
	} >"$out/facts.sh"

	summarise
	# Profile what misses its target, or else the figure closest to its target.
	if [ "$profile" != 0 ]; then
		"$out/perfdoc" -csv "$out/benchstat.csv" -raw "$out/bench.txt" -misses | while read -r pat name; do
			log "profiling $pat"
			# A pattern starting vm: is the vm package's benchmark.
			bin=$out/bench.test dir=$here
			case $pat in vm:*) pat=${pat#vm:} bin=$out/vm.test dir=$here/../vm ;; esac
			(cd "$dir" && "$bin" -test.run '^$' -test.bench "$pat" -test.count 1 \
				-test.benchtime "$profile_time" -test.benchmem \
				-test.cpuprofile "$out/$name.cpu.prof" -test.memprofile "$out/$name.mem.prof") >&2
			go tool pprof -top -cum -nodecount 30 "$bin" "$out/$name.cpu.prof" >"$out/$name.cpu.txt" 2>/dev/null
			go tool pprof -sample_index=alloc_space -top -nodecount 15 "$bin" "$out/$name.mem.prof" >"$out/$name.mem.txt" 2>/dev/null
		done
	fi
fi

[ -s "$out/bench.txt" ] && [ -f "$out/facts.sh" ] || { log "no run in $out: run without BENCH_RENDER_ONLY first"; exit 1; }
# shellcheck source=/dev/null
. "$out/facts.sh"
summarise
"$out/perfdoc" -csv "$out/benchstat.csv" -raw "$out/bench.txt" -text "$out/benchstat.txt" -profiles "$out" \
	-analysis "$here/analysis.md" -out "$doc" \
	-cpu "$f_cpu" -cores "$f_cores" -go "$f_go" -date "$f_date" -count "$f_count" -commit "$f_commit" \
	-load-before "$f_load_before" -load-during "$f_load_during" -load-after "$f_load_after" \
	-steal "${f_steal:-?}" -peers "${f_peers:-$(go list -mod=mod -m -f '{{.Path}} {{.Version}}' github.com/expr-lang/expr cel.dev/cel-go | paste -sd, - | sed 's/,/, /g')}" \
	-benchstat "golang.org/x/perf/cmd/benchstat@$perf_version"
log "wrote $doc"
