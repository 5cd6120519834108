#!/bin/sh
# local/worker's entrypoint: the objective (standard input) names a
# directory; the answer (standard output) counts its Go files and lines.
dir=$(cat)
if [ ! -d "$dir" ]; then
	echo "no directory $dir" >&2
	exit 1
fi
files=$(find "$dir" -name '*.go' -type f | wc -l | tr -d ' ')
lines=$(find "$dir" -name '*.go' -type f -exec cat {} + | wc -l | tr -d ' ')
echo "$dir: $files Go files, $lines lines"
