package check

import (
	"strings"

	"github.com/planc/planc/ast"
)

// ruleCapsuleNotAllowed warns when a capsule step's bare name matches no
// entry of capabilities.spawn.allow, or two (S15). It is a warning only: the
// roost decides at spawn time, and then fails the step. It needs
// capabilities.
var ruleCapsuleNotAllowed = Rule{
	Code:      "capsule-not-allowed",
	Severity:  ast.Warning,
	Doc:       "a capsule step's bare name matches no entry of capabilities.spawn.allow, or two (S15)",
	Example:   `{"id": "w", "capsule": "wrker", "input": "summarise"}`,
	NeedsCaps: true,
	plan: func(p *Pass, r *Rule) {
		p.spawnBare = p.spawnBare[:0]
		for _, a := range p.Caps.SpawnAllow {
			p.spawnBare = append(p.spawnBare, a[strings.LastIndexByte(a, '/')+1:])
		}
	},
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Kind != ast.KindCapsule {
			return
		}
		var matches []string
		for i, b := range p.spawnBare {
			if b == s.Target {
				matches = append(matches, p.Caps.SpawnAllow[i])
			}
		}
		sp := s.TargetField.Value.Span
		switch {
		case len(matches) > 1:
			p.report(r, s, sp, "", "capsule %q matches %s in capabilities.spawn.allow, so the roost will refuse it as ambiguous; rename one of those capsules", s.Target, ast.QuoteList(matches, ""))
		case len(matches) == 0:
			sug := ast.Suggest(s.Target, p.spawnBare)
			fix := didYouMean(sug)
			if sug == "" {
				fix = "; add its namespaced name (e.g. \"local/" + s.Target + "\") to capabilities.spawn.allow"
			}
			p.report(r, s, sp, sug, "capsule %q matches no entry of capabilities.spawn.allow, so the roost will refuse to spawn it%s", s.Target, fix)
		}
	},
}
