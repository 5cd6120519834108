package check

import "github.com/planc/planc/ast"

// graph is the plan's dependency graph over step indices, built once per
// pass for the cycle and reachability rules. Only depends_on entries naming
// a declared step are edges (an unknown one is unknown-dependency's).
type graph struct {
	deps    [][]int32       // deps[i]: the steps step i depends on
	depRefs [][]*ast.DepRef // the entries behind deps[i], same order
	users   [][]int32       // users[i]: the steps that depend on step i
	// topo[i] is step i's index in a topological order, or -1 when the
	// step lies on or behind a cycle.
	topo []int32
}

func (p *Pass) graph() *graph {
	if p.g != nil {
		return p.g
	}
	p.resolve()
	n := len(p.Plan.Steps)
	g := &graph{deps: make([][]int32, n), depRefs: make([][]*ast.DepRef, n), users: make([][]int32, n), topo: make([]int32, n)}
	// Steps are indexed by their position in p.Plan.Steps (p.pos), which
	// may differ from Step.Index when a steps element is not an object.
	// Edge lists are carved from three buffers sized by a first count, so
	// the graph costs a handful of allocations whatever its size.
	nusers := make([]int32, n)
	total := 0
	for i := range p.Plan.Steps {
		for _, j := range p.depPos[i] {
			if j >= 0 {
				nusers[j]++
				total++
			}
		}
	}
	dbuf, rbuf, ubuf := make([]int32, 0, total), make([]*ast.DepRef, 0, total), make([]int32, total)
	for i, s := range p.Plan.Steps {
		start := len(dbuf)
		for k, j := range p.depPos[i] {
			if j >= 0 {
				dbuf = append(dbuf, j)
				rbuf = append(rbuf, s.DependsOn[k])
			}
		}
		g.deps[i], g.depRefs[i] = dbuf[start:len(dbuf):len(dbuf)], rbuf[start:len(rbuf):len(rbuf)]
	}
	for j := range nusers {
		k := nusers[j]
		g.users[j], ubuf = ubuf[:0:k], ubuf[k:]
	}
	for i := range p.Plan.Steps {
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

// resolve maps every depends_on entry and every reference of every step to
// the position in Plan.Steps of the step it names (-1 when the plan does
// not declare it), once per pass: the rules that need them share these
// instead of each looking ids up again. depPos[i] is aligned with
// Plan.Steps[i].DependsOn, refPos[i] with its Refs.
func (p *Pass) resolve() {
	if p.depPos != nil {
		return
	}
	steps := p.Plan.Steps
	nd, nr := 0, 0
	for _, s := range steps {
		nd += len(s.DependsOn)
		nr += len(s.Refs)
	}
	dbuf, rbuf := make([]int32, nd), make([]int32, nr)
	p.depPos, p.refPos = make([][]int32, len(steps)), make([][]int32, len(steps))
	for i, s := range steps {
		d := dbuf[:len(s.DependsOn):len(s.DependsOn)]
		dbuf = dbuf[len(s.DependsOn):]
		for k, dep := range s.DependsOn {
			d[k] = p.byID.lookup(dep.ID)
		}
		r := rbuf[:len(s.Refs):len(s.Refs)]
		rbuf = rbuf[len(s.Refs):]
		for k, ref := range s.Refs {
			r[k] = p.byID.lookup(ref.StepID)
		}
		p.depPos[i], p.refPos[i] = d, r
	}
}
