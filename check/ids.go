package check

import "hash/maphash"

// idSeed seeds the id index's hash. It is random per process, so a plan
// cannot be written to make its ids collide (which would make lookups
// linear and checking quadratic); results never depend on it.
var idSeed = maphash.MakeSeed()

// idIndex finds a step's position in Plan.Steps by its id. It replaces a
// map[string]*ast.Step: with 100k steps such a map's lookups miss the cache
// on its control words, its slots and then the step, and resolving every
// dependency and reference was the part of check that grew fastest with the
// plan. Here a lookup reads one 8-byte slot of a table a quarter the size,
// and compares the id only when the stored hash matches (reading it from
// the step: a copy of every id would cost 16 bytes a step).
type idIndex struct {
	slots []idSlot             // open addressing, linear probing; len is a power of two
	id    func(i int32) string // the id of the step at position i
	// first[i] is the position of the first step with step i's id: i
	// itself unless i repeats an earlier id; -1 when the id is empty.
	first []int32
}

type idSlot struct {
	hash uint32
	pos  int32 // position + 1; 0 marks an empty slot
}

// newIDIndex indexes the ids of n steps (by position), id(i) being the id
// of the step at position i, keeping the first step of each id.
func newIDIndex(n int, id func(i int32) string) *idIndex {
	size := 16
	for size < 2*n {
		size *= 2
	}
	x := &idIndex{slots: make([]idSlot, size), id: id, first: make([]int32, n)}
	mask := uint64(size - 1)
	for i := range n {
		id := x.id(int32(i))
		if id == "" {
			x.first[i] = -1
			continue
		}
		h := maphash.String(idSeed, id)
		for k := h & mask; ; k = (k + 1) & mask {
			s := x.slots[k]
			if s.pos == 0 {
				x.slots[k] = idSlot{hash: uint32(h), pos: int32(i) + 1}
				x.first[i] = int32(i)
				break
			}
			if s.hash == uint32(h) && x.id(s.pos-1) == id {
				x.first[i] = s.pos - 1
				break
			}
		}
	}
	return x
}

// lookup returns the position of the first step with the given id, or -1.
func (x *idIndex) lookup(id string) int32 {
	h := maphash.String(idSeed, id)
	mask := uint64(len(x.slots) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		s := x.slots[k]
		if s.pos == 0 {
			return -1
		}
		if s.hash == uint32(h) && x.id(s.pos-1) == id {
			return s.pos - 1
		}
	}
}
