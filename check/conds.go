package check

import (
	"strconv"
	"strings"

	"github.com/planc/planc/ast"
)

// stepCompares returns the comparisons of s's condition, in source order.
// The three condition rules run one after another on the same step, so the
// walk is made once and kept until the pass moves to the next step.
func (p *Pass) stepCompares(s *ast.Step) []*ast.Compare {
	if p.cmpStep != s {
		p.cmpStep, p.cmps = s, p.cmps[:0]
		ast.InspectCond(s.Cond, func(c ast.Cond) bool {
			if cmp, ok := c.(*ast.Compare); ok {
				p.cmps = append(p.cmps, cmp)
			}
			return true
		})
	}
	return p.cmps
}

// numberLike reports whether lit, without surrounding space, is a number
// to strconv.ParseFloat. Most literals are words, so the first byte
// decides before ParseFloat is asked (its error for a word allocates).
func numberLike(lit string) bool {
	lit = strings.TrimSpace(lit)
	if lit == "" || !strings.ContainsRune("0123456789.+-iInN", rune(lit[0])) {
		return false
	}
	_, err := strconv.ParseFloat(lit, 64)
	return err == nil
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
