package vm

// heap is a min-heap of step indices: whatever waits is taken in plan order
// (S17).
type heap struct{ a []int32 }

func (h *heap) len() int { return len(h.a) }

func (h *heap) min() int32 { return h.a[0] }

func (h *heap) clear() { h.a = h.a[:0] }

func (h *heap) push(x int32) {
	h.a = append(h.a, x)
	for i := len(h.a) - 1; i > 0; {
		p := (i - 1) / 2
		if h.a[p] <= h.a[i] {
			break
		}
		h.a[p], h.a[i] = h.a[i], h.a[p]
		i = p
	}
}

func (h *heap) pop() int32 {
	a := h.a
	x := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && a[r] < a[l] {
			l = r
		}
		if a[i] <= a[l] {
			break
		}
		a[i], a[l] = a[l], a[i]
		i = l
	}
	h.a = a
	return x
}
