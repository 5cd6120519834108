package check

import (
	"strconv"
	"strings"

	"github.com/planc/planc/ast"
)

// ruleCapsuleNotAllowed warns when a capsule step's bare name matches no
// entry of capabilities.spawn.allow, or two (S15), and when the step names
// no bare name: a namespaced name ("local/worker"), or none at all. It is a
// warning only: the roost decides at spawn time, and then fails the step.
// It needs capabilities.
var ruleCapsuleNotAllowed = Rule{
	Code:      "capsule-not-allowed",
	Severity:  ast.Warning,
	Doc:       "a capsule step's name is not a bare name, or matches no entry of capabilities.spawn.allow, or two (S15)",
	Example:   `{"id": "w", "capsule": "wrker", "input": "summarise"}`,
	NeedsCaps: true,
	plan: func(p *Pass, r *Rule) {
		p.spawnBare = p.spawnBare[:0]
		for _, a := range p.Caps.SpawnAllow {
			p.spawnBare = append(p.spawnBare, a[strings.LastIndexByte(a, '/')+1:])
		}
	},
	on: onCapsule,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Kind != ast.KindCapsule {
			return
		}
		sp := s.TargetField().Span
		switch bare, plain := bareName(s.Target); {
		case bare == "":
			bare, entry := "worker", "local/worker"
			if len(p.spawnBare) > 0 {
				bare, entry = p.spawnBare[0], p.Caps.SpawnAllow[0]
			}
			p.report(r, s, sp, "", "capsule %q names no capsule: a capsule step names the capsule by its bare name, as %q for %q", s.Target, bare, entry)
			return
		case !plain:
			p.report(r, s, sp, bare, "capsule %q is not a bare name: a capsule step names the capsule by its bare name; write %q, the bare name, not %q", s.Target, bare, s.Target)
			return
		}
		var matches []string
		for i, b := range p.spawnBare {
			if b == s.Target {
				matches = append(matches, p.Caps.SpawnAllow[i])
			}
		}
		switch {
		case len(matches) > 1:
			p.report(r, s, sp, "", "capsule %q matches %s in capabilities.spawn.allow%s, so the roost will refuse it as ambiguous; keep one of them in capabilities.spawn.allow, or rename one of those capsules", s.Target, ast.QuoteList(matches, ""), p.Caps.of())
		case len(matches) == 0:
			sug := ast.Suggest(s.Target, p.spawnBare)
			fix := p.Caps.grant("its namespaced name (e.g. "+strconv.Quote("local/"+s.Target)+")", "capabilities.spawn.allow")
			if !ast.IsCapsuleName("local/" + s.Target) {
				// No grant lifts it: no capsule has such a name.
				fix = "no capsule can have that name (each part of a capsule's namespace/name is letters, digits, _, - and ., not starting with . or -); name a capsule of the roost"
			}
			p.report(r, s, sp, sug, "capsule %q matches no entry of capabilities.spawn.allow%s, so the roost will refuse to spawn it%s; %s",
				s.Target, p.Caps.of(), meant(sug), fix)
		}
	},
}

// bareName returns the bare name a capsule step's name stands for, and
// false when the name is namespaced ("local/worker" stands for "worker";
// a capsule is named by its last segment, S15). A name ending in "/"
// stands for no bare name.
func bareName(name string) (string, bool) {
	i := strings.LastIndexByte(name, '/')
	return name[i+1:], i < 0
}
