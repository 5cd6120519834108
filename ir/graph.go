package ir

import (
	"slices"
	"strconv"
	"strings"
)

// linkDependents fills every step's Dependents from the Deps, ascending,
// in one backing array.
func linkDependents(p *Program) {
	counts := make([]int32, len(p.Steps))
	total := 0
	for i := range p.Steps {
		for _, d := range p.Steps[i].Deps {
			counts[d]++
			total++
		}
	}
	back := make([]int32, total)
	off := 0
	for i := range p.Steps {
		c := int(counts[i])
		if c > 0 {
			p.Steps[i].Dependents = back[off : off : off+c]
		}
		off += c
	}
	// Visiting steps in ascending order appends each dependent in order.
	for i := range p.Steps {
		for _, d := range p.Steps[i].Deps {
			p.Steps[d].Dependents = append(p.Steps[d].Dependents, int32(i))
		}
	}
}

// findCycle returns a dependency cycle as text ("a → b → a", each step
// before the ones that wait for it), or "" when the graph has none. It
// trusts Deps and Dependents to agree and to hold valid indices.
func findCycle(p *Program) string {
	n := len(p.Steps)
	deg := make([]int32, n)
	queue := make([]int32, 0, n)
	for i := range p.Steps {
		deg[i] = int32(len(p.Steps[i].Deps))
		if deg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for k := 0; k < len(queue); k++ {
		for _, d := range p.Steps[queue[k]].Dependents {
			if deg[d]--; deg[d] == 0 {
				queue = append(queue, d)
			}
		}
	}
	if len(queue) == n {
		return ""
	}
	// Every step left waits for at least one other step left: walk
	// backwards along such dependencies from the first until one repeats.
	start := int32(slices.IndexFunc(deg, func(d int32) bool { return d > 0 }))
	seen := make(map[int32]int, 8)
	var path []int32
	for at := start; ; {
		if k, ok := seen[at]; ok {
			path = path[k:]
			break
		}
		seen[at] = len(path)
		path = append(path, at)
		for _, d := range p.Steps[at].Deps {
			if deg[d] > 0 {
				at = d
				break
			}
		}
	}
	// path follows "waits for"; print it dependency first, from the step
	// earliest in the plan.
	slices.Reverse(path)
	k := slices.Index(path, slices.Min(path))
	path = slices.Concat(path[k:], path[:k])
	var b strings.Builder
	for _, s := range path {
		b.WriteString(strconv.Quote(p.Steps[s].ID))
		b.WriteString(" → ")
	}
	b.WriteString(strconv.Quote(p.Steps[path[0]].ID))
	return b.String()
}
