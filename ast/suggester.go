package ast

// SuggestBudget is the work a Suggester may do in all, in units of one
// known name looked at (a row of edit distance counts as one more): about
// a few tens of milliseconds. A plan's did-you-mean for its unknown step
// names is one Suggester, so this caps that work per plan (issue 13).
const SuggestBudget = 1 << 21

// Suggester gives Suggest's answers for many names against one list of
// known names, with its work bounded. Known names are grouped by length,
// and a name is compared only with those whose length is within 2 of its
// own; each of those is first held to a cheap lower bound of the edit
// distance (the bag distance of their byte histograms), and only a name
// that could still win gets its edit distance computed. All of it counts
// against a budget: once it is spent, Suggest answers "" for the name it
// was looking for and every later one, so the first names get exactly
// Suggest's answer and a plan with thousands of unknown names does not
// cost thousands of scans of the whole list.
type Suggester struct {
	known  []string
	byLen  [maxCompared + 1][]int32 // indices of known names by length
	hist   []hist                   // each known name's histogram (names of length ≤ maxCompared)
	budget int
}

// maxCompared is the longest name editDistance compares: a longer one is
// never suggested nor given a suggestion (Suggest's rule).
const maxCompared = 64

// hist is a name's byte histogram: bytes are counted by their low five
// bits, one count a byte of the four words (a name compared is at most 64
// bytes, so a count fits in seven bits). The bag distance of two
// histograms is at most the edit distance of the names: each edit changes
// one count up and one down at most, and merging bytes into classes only
// makes the difference smaller.
type hist [4]uint64

// NewSuggester returns a Suggester for known with SuggestBudget.
func NewSuggester(known []string) *Suggester {
	return NewSuggesterBudget(known, SuggestBudget)
}

// NewSuggesterBudget returns a Suggester for known that stops after
// budget units of work (see SuggestBudget); a negative budget never stops.
func NewSuggesterBudget(known []string, budget int) *Suggester {
	s := &Suggester{known: known, hist: make([]hist, len(known)), budget: budget}
	for i, k := range known {
		if len(k) <= maxCompared {
			s.byLen[len(k)] = append(s.byLen[len(k)], int32(i))
			s.hist[i] = histogram(k)
		}
	}
	return s
}

func histogram(s string) hist {
	var h hist
	for i := 0; i < len(s); i++ {
		c := s[i] & 31
		h[c>>3] += 1 << (c & 7 * 8)
	}
	return h
}

// bagDistance is a lower bound of the edit distance of two names of
// lengths la and lb (at most 64) with histograms a and b: max(what a has
// more of, what b has more of), which is (Σ|a−b| + |la−lb|) / 2. The sum
// is taken eight counts at a time.
func bagDistance(a, b *hist, la, lb int) int {
	const high, low7, ones = 0x8080808080808080, 0x7f7f7f7f7f7f7f7f, 0x0101010101010101
	sum := 0
	for i := range a {
		d := (a[i] | high) - b[i] // each byte 128+x−y: no borrow crosses bytes
		pos := (d & high) >> 7 * 0xff
		v := d & low7
		abs := v&pos | (high-v)&^pos // x−y where x ≥ y, else 128−(128+x−y)
		// Σ|x−y| over all classes is at most la+lb ≤ 128, so the bytes
		// add up without a carry.
		sum += int(abs * ones >> 56)
	}
	return (sum + abs(la-lb)) / 2
}

// Exhausted reports whether the budget is spent: Suggest answers "" from
// then on.
func (s *Suggester) Exhausted() bool { return s.budget == 0 }

// spend takes n units from the budget, and reports false when there were
// not enough (the budget is then spent).
func (s *Suggester) spend(n int) bool {
	if s.budget < 0 {
		return true
	}
	if s.budget < n {
		s.budget = 0
		return false
	}
	s.budget -= n
	return true
}

// SuggestExcept is Suggest with except left out of the known names: a
// step that names an unknown step is not offered itself, which it may not
// depend on or read.
func (s *Suggester) SuggestExcept(name, except string) string {
	return s.suggest(name, &except)
}

// Suggest returns what Suggest(name, known) returns, or "" once the
// budget is spent.
func (s *Suggester) Suggest(name string) string { return s.suggest(name, nil) }

// suggest is Suggest, never suggesting *except when except is not nil.
func (s *Suggester) suggest(name string, except *string) string {
	if s.budget == 0 || len(name) > maxCompared {
		return ""
	}
	h := histogram(name)
	best, bestD, bestIdx := "", 3, int32(-1)
	for diff := 0; diff <= bestD && diff < 3; diff++ {
		for _, l := range [2]int{len(name) - diff, len(name) + diff} {
			if l >= 0 && l <= maxCompared {
				var ok bool
				if best, bestD, bestIdx, ok = s.scan(name, except, &h, s.byLen[l], best, bestD, bestIdx); !ok {
					return ""
				}
			}
			if diff == 0 {
				break // both lengths are the name's
			}
		}
	}
	return best
}

// scan looks at the known names of one length (indices idx) for one that
// beats best, at distance bestD, index bestIdx (-1: none yet): nearer, or
// as near and earlier in known (Suggest's tie rule), never *except. ok is
// false when the budget ran out.
func (s *Suggester) scan(name string, except *string, h *hist, idx []int32, best string, bestD int, bestIdx int32) (string, int, int32, bool) {
	for _, i := range idx {
		if !s.spend(1) {
			return "", 0, 0, false
		}
		canTie := bestIdx >= 0 && i < bestIdx
		k := s.known[i]
		lb := bagDistance(h, &s.hist[i], len(name), len(k))
		if lb > bestD || (lb == bestD && !canTie) || k == name || except != nil && k == *except {
			continue
		}
		limit := bestD
		if canTie {
			limit++
		}
		if !s.spend(len(name)) {
			return "", 0, 0, false
		}
		if d := editDistance(name, k, limit); d < limit {
			best, bestD, bestIdx = k, d, i
		}
	}
	return best, bestD, bestIdx, true
}
