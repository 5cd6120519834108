package check

import "github.com/planc/planc/ast"

// compares calls fn for every comparison in the conditions of steps that
// parsed, in plan order.
func (p *Pass) compares(fn func(s *ast.Step, c *ast.Compare)) {
	for _, s := range p.Plan.Steps {
		if s.Cond != nil {
			walkCompares(s.Cond, func(c *ast.Compare) { fn(s, c) })
		}
	}
}

func walkCompares(c ast.Cond, fn func(*ast.Compare)) {
	switch c := c.(type) {
	case *ast.Logical:
		walkCompares(c.X, fn)
		walkCompares(c.Y, fn)
	case *ast.Compare:
		fn(c)
	}
}

// refAndLiteral returns the reference and the literal of a comparison
// between one of each, or nils.
func refAndLiteral(c *ast.Compare) (*ast.Ref, *ast.Literal) {
	if r, ok := c.X.(*ast.Ref); ok {
		if l, ok := c.Y.(*ast.Literal); ok {
			return r, l
		}
	}
	if r, ok := c.Y.(*ast.Ref); ok {
		if l, ok := c.X.(*ast.Literal); ok {
			return r, l
		}
	}
	return nil, nil
}
