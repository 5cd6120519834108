package ast

// Suggest returns the name in known closest to name within edit distance 2
// (Levenshtein, bytes), or "" when none is that close. Ties go to the
// earliest name in known, so the result is deterministic. A name equal to
// one in known is not suggested.
func Suggest(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if k == name {
			continue
		}
		if d := editDistance(name, k, bestD); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance returns the Levenshtein distance of a and b, or limit when it
// is at least limit (it stops early once every path exceeds it).
func editDistance(a, b string, limit int) int {
	if abs(len(a)-len(b)) >= limit {
		return limit
	}
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return limit
	}
	var prevBuf, curBuf [65]int
	prev, cur := prevBuf[:len(b)+1], curBuf[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
