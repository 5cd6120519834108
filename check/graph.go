package check

import "github.com/planc/planc/ast"

// graph is the plan's dependency graph over step indices, built once per
// pass for the cycle and reachability rules. Only depends_on entries naming
// a declared step are edges (an unknown one is unknown-dependency's). The
// edge lists are stored one after another with their offsets (deps(i),
// users(i)), not as a slice per step: a plan of n steps costs a few
// allocations of int32s, no slice headers and nothing for the collector to
// scan.
type graph struct {
	dep, depOff   []int32 // step i depends on dep[depOff[i]:depOff[i+1]]
	user, userOff []int32 // step i is depended on by user[userOff[i]:userOff[i+1]]
	// topo[i] is step i's index in a topological order, or -1 when the
	// step lies on or behind a cycle.
	topo []int32
}

// len is the number of steps.
func (g *graph) len() int { return len(g.topo) }

// deps returns the steps step i depends on.
func (g *graph) deps(i int32) []int32 { return g.dep[g.depOff[i]:g.depOff[i+1]] }

// users returns the steps that depend on step i, in plan order.
func (g *graph) users(i int32) []int32 { return g.user[g.userOff[i]:g.userOff[i+1]] }

func (p *Pass) graph() *graph {
	if p.g != nil {
		return p.g
	}
	n := len(p.Plan.Steps)
	g := &graph{topo: make([]int32, n)}
	// Steps are indexed by their position in p.Plan.Steps, which may differ
	// from Step.Index when a steps element is not an object. The edges are
	// the resolved depends_on entries (p.deps, p.depOff) themselves, or
	// (when some entry names no step) a copy without those. The graph
	// costs a handful of allocations whatever its size, and reads no step.
	userOff := make([]int32, n+1)
	total, unknown := 0, false
	for _, j := range p.deps {
		if j >= 0 {
			userOff[j+1]++
			total++
		} else {
			unknown = true
		}
	}
	g.dep, g.depOff = p.deps, p.depOff
	if unknown {
		g.dep, g.depOff = make([]int32, 0, total), make([]int32, 1, n+1)
		for _, j := range p.deps {
			if j >= 0 {
				g.dep = append(g.dep, j)
			}
		}
		for i := range n {
			g.depOff = append(g.depOff, g.depOff[i])
			for _, j := range p.depsOf(i) {
				if j >= 0 {
					g.depOff[i+1]++
				}
			}
		}
	}
	for j := range n {
		userOff[j+1] += userOff[j]
	}
	g.user, g.userOff = make([]int32, total), userOff
	fill := make([]int32, n) // users of each step placed so far
	for i := range n {
		for _, j := range g.deps(int32(i)) {
			g.user[userOff[j]+fill[j]] = int32(i)
			fill[j]++
		}
	}
	// Kahn's algorithm, in plan order, for the topological index; fill
	// becomes each step's count of dependencies not yet ordered.
	for i := range n {
		fill[i] = g.depOff[i+1] - g.depOff[i]
	}
	queue := make([]int32, 0, n)
	for i := range fill {
		g.topo[i] = -1
		if fill[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for k := 0; k < len(queue); k++ {
		i := queue[k]
		g.topo[i] = int32(k)
		for _, u := range g.users(i) {
			if fill[u]--; fill[u] == 0 {
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
		p.deps = append(p.deps, p.byID.lookup(d.ID))
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
func (p *Pass) lookupRef(id string, dependsOn []ast.Dep, deps []int32) int32 {
	if len(dependsOn) <= 8 {
		for k, d := range dependsOn {
			if d.ID == id {
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
