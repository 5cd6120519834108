package parser

// Limits bounds what the parser accepts (semantics S5). A host may change
// them; DefaultLimits returns the documented values.
type Limits struct {
	MaxBytes int // plan text size, in bytes
	MaxDepth int // JSON nesting depth
	MaxSteps int // number of steps in a plan
}

// DefaultLimits returns the limits of semantics S5: 16 MiB, nesting 256,
// 100,000 steps.
func DefaultLimits() Limits {
	return Limits{MaxBytes: 16 << 20, MaxDepth: 256, MaxSteps: 100_000}
}
