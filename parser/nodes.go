package parser

import (
	"unsafe"

	"github.com/planc/planc/ast"
)

// nodes hands out the small AST nodes of a plan (references, comparisons,
// literals, dependency entries and the short pointer lists of a step) cut
// from slabs, so a plan of 100k steps costs a few thousand allocations for
// them instead of over a million, and a step's nodes lie together in
// memory. A nil *nodes allocates each node on its own (ParseCond called
// alone).
type nodes struct {
	refs   []ast.Ref
	cmps   []ast.Compare
	logs   []ast.Logical
	lits   []ast.Literal
	mptrs  []*ast.Member
	vptrs  []*ast.Value
	words  []string // shell steps' words (Step.Argv) and unknown keys
	rptrs  []*ast.Ref
	fields []ast.Field // steps' members
	deps   []ast.Dep   // steps' depends_on entries
}

// slabBytes is the size of a slab: large enough that allocations are rare,
// small enough that keeping one node of a dropped tree alive pins little,
// and one of the allocator's size classes, so a slab of any node type
// (slabLen) wastes less than one node of it (128 references of 56 bytes
// took 7,168 bytes, rounded up to 8,192).
const slabBytes = 8192

// slabLen is how many nodes of type T a slab holds.
func slabLen[T any]() int {
	var t T
	return max(16, slabBytes/int(unsafe.Sizeof(t)))
}

func cut[T any](slab *[]T) *T {
	if len(*slab) == cap(*slab) {
		*slab = make([]T, 0, slabLen[T]())
	}
	*slab = (*slab)[:len(*slab)+1]
	return &(*slab)[len(*slab)-1]
}

// cutList returns an exact-capacity copy of xs cut from slab.
func cutList[T any](slab *[]T, xs []T) []T {
	if len(xs) == 0 {
		return nil
	}
	if len(xs) > cap(*slab)-len(*slab) {
		*slab = make([]T, 0, max(slabLen[T](), len(xs)))
	}
	i := len(*slab)
	*slab = append(*slab, xs...)
	return (*slab)[i:len(*slab):len(*slab)]
}

func (n *nodes) ref() *ast.Ref {
	if n == nil {
		return new(ast.Ref)
	}
	return cut(&n.refs)
}

func (n *nodes) compare() *ast.Compare {
	if n == nil {
		return new(ast.Compare)
	}
	return cut(&n.cmps)
}

func (n *nodes) logical() *ast.Logical {
	if n == nil {
		return new(ast.Logical)
	}
	return cut(&n.logs)
}

func (n *nodes) literal() *ast.Literal {
	if n == nil {
		return new(ast.Literal)
	}
	return cut(&n.lits)
}
