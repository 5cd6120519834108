package check

import (
	"github.com/planc/planc/ast"
	"github.com/planc/planc/parser"
)

// MaxRetries is the largest retries value S3 accepts; the cap keeps a typo
// from retrying forever.
const MaxRetries = 100

// ruleRetriesRange refuses a retries value that is not a JSON integer from 0
// to 100 (S3): a fraction, an exponent, a negative number, too large.
var ruleRetriesRange = Rule{
	Code:     "retries-range",
	Severity: ast.Error,
	Doc:      "retries is not an integer from 0 to 100 (S3)",
	Example:  `{"id": "a", "tool": "notes", "retries": -1}`,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		m := s.RetriesField()
		if m == nil || m.Kind != ast.Number {
			return
		}
		if lit := parser.FieldText(p.Plan, m); !isPlainInt(lit) || s.Retries < 0 || s.Retries > MaxRetries {
			p.Bad[s.Index] = true
			p.report(r, s, m.Span, "", "retries %s is not an integer from 0 to %d; write a whole number such as 2 (extra dispatches after a failure)", lit, MaxRetries)
		}
	},
}

// isPlainInt reports whether a JSON number literal is an integer that fits
// the parser's range (no fraction, no exponent, at most 9 digits).
func isPlainInt(lit string) bool {
	if len(lit) > 0 && lit[0] == '-' {
		lit = lit[1:]
	}
	if lit == "" || len(lit) > 9 {
		return false
	}
	for i := 0; i < len(lit); i++ {
		if lit[i] < '0' || lit[i] > '9' {
			return false
		}
	}
	return true
}
