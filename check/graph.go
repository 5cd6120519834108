package check

import "github.com/planc/planc/ast"

// graph is the plan's dependency graph over step indices, built once per
// pass for the cycle and reachability rules. Only depends_on entries naming
// a declared step are edges (an unknown one is unknown-dependency's).
type graph struct {
	deps  [][]int32 // deps[i]: the steps step i depends on
	users [][]int32 // users[i]: the steps that depend on step i
	// topo[i] is step i's index in a topological order, or -1 when the
	// step lies on or behind a cycle.
	topo []int32
}

func (p *Pass) graph() *graph {
	if p.g != nil {
		return p.g
	}
	n := len(p.Plan.Steps)
	g := &graph{deps: make([][]int32, n), users: make([][]int32, n), topo: make([]int32, n)}
	// Steps are indexed by their position in p.Plan.Steps, which may differ
	// from Step.Index when a steps element is not an object. An edge list
	// is the step's resolved depends_on entries, or (when some entry names
	// no step) a copy without those; users' lists are carved from one
	// buffer sized by a first count. The graph costs a handful of
	// allocations whatever its size, and reads no step.
	nusers := make([]int32, n)
	total, unknown := 0, false
	for _, j := range p.deps {
		if j >= 0 {
			nusers[j]++
			total++
		} else {
			unknown = true
		}
	}
	var dbuf []int32
	if unknown {
		dbuf = make([]int32, 0, total)
	}
	for i := range n {
		d := p.depsOf(i)
		if unknown {
			start := len(dbuf)
			for _, j := range d {
				if j >= 0 {
					dbuf = append(dbuf, j)
				}
			}
			d = dbuf[start:len(dbuf):len(dbuf)]
		}
		g.deps[i] = d[:len(d):len(d)]
	}
	ubuf := make([]int32, total)
	for j := range nusers {
		k := nusers[j]
		g.users[j], ubuf = ubuf[:0:k], ubuf[k:]
	}
	for i := range n {
		for _, j := range g.deps[i] {
			g.users[j] = append(g.users[j], int32(i))
		}
	}
	// Kahn's algorithm, in plan order, for the topological index.
	indeg := make([]int32, n)
	for i := range g.deps {
		indeg[i] = int32(len(g.deps[i]))
	}
	queue := make([]int32, 0, n)
	for i := range indeg {
		g.topo[i] = -1
		if indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for k := 0; k < len(queue); k++ {
		i := queue[k]
		g.topo[i] = int32(k)
		for _, u := range g.users[i] {
			if indeg[u]--; indeg[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	p.g = g
	return g
}

// resolve finds the steps that s, the next step of the pass, names in
// depends_on and in references.
func (p *Pass) resolve(s *ast.Step) {
	for _, d := range s.DependsOn {
		p.deps = append(p.deps, p.byID.lookup(d.Str))
	}
	deps := p.deps[p.depOff[len(p.depOff)-1]:]
	for _, r := range s.Refs {
		p.refs = append(p.refs, p.lookupRef(r.StepID, s.DependsOn, deps))
	}
	p.depOff = append(p.depOff, int32(len(p.deps)))
	p.refOff = append(p.refOff, int32(len(p.refs)))
}

// lookupRef finds the step a reference names. A reference usually names
// one of its own step's dependencies (S9 warns otherwise), whose positions
// are already known: comparing with those few ids is cheaper than a lookup
// in the index, which at 100k steps misses the cache. The scan is bounded,
// so a step with thousands of entries and references stays linear.
func (p *Pass) lookupRef(id string, dependsOn []*ast.Value, deps []int32) int32 {
	if len(dependsOn) <= 8 {
		for k, d := range dependsOn {
			if d.Str == id {
				return deps[k]
			}
		}
	}
	return p.byID.lookup(id)
}

// depsOf returns the positions of step i's depends_on entries, in order,
// -1 for an entry naming no step.
func (p *Pass) depsOf(i int) []int32 { return p.deps[p.depOff[i]:p.depOff[i+1]] }

// refsOf returns the positions of the steps step i's references name, in
// the order of Step.Refs, -1 for no such step.
func (p *Pass) refsOf(i int) []int32 { return p.refs[p.refOff[i]:p.refOff[i+1]] }
