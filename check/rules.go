package check

import (
	"fmt"
	"strings"

	"github.com/planc/planc/ast"
)

// rules returns every rule in the order they run: schema rules first, then
// the seed's refusals, then the warnings. The order only matters for rules
// that read what earlier ones found for the same step: every rule that sets
// Pass.Bad (the schema rules, shell-syntax, condition-syntax) comes before
// shell-not-allowed and reference-not-dependency, which read it, and
// shell-syntax before shell-not-allowed, which reads argv0. The graph
// rules' plan parts run after the pass over the steps.
func rules() []Rule {
	return []Rule{
		ruleUnknownField,
		ruleMissingField,
		ruleWrongType,
		ruleEmptyID,
		ruleRetriesRange,
		ruleOnErrorValue,
		ruleNoStepKind,
		ruleSeveralStepKinds,
		ruleDuplicateStepID,
		ruleCapsuleInput,
		ruleShellSyntax,
		ruleConditionSyntax,
		ruleUnknownDependency,
		ruleUnknownReference,
		ruleReferenceField,
		ruleSubmitPlanTool,
		ruleUnknownTool,
		ruleToolInput,
		ruleShellNotAllowed,
		ruleDependencyCycle,
		ruleUnreferenceableID,
		ruleReferenceLikeText,
		ruleReferenceInKey,
		ruleReferenceInShell,
		ruleReferenceNotDependency,
		ruleNumericComparison,
		ruleStatusLiteral,
		ruleStatusOrdering,
		ruleShellInputIgnored,
		ruleDuplicateDependency,
		ruleCapsuleNotAllowed,
	}
}

// Rules returns every rule, sorted by code, for documentation and SARIF.
func Rules() []Rule {
	rs := rules()
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].Code < rs[j-1].Code; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	return rs
}

// report adds a diagnostic of rule r.
func (p *Pass) report(r *Rule, s *ast.Step, sp ast.Span, suggestion, format string, args ...any) {
	d := Diagnostic{Span: sp, Severity: r.Severity, Code: r.Code, Message: fmt.Sprintf(format, args...), Suggestion: suggestion}
	if s != nil {
		d.Step = s.ID
	}
	p.Report(d)
}

// didYouMean returns "; did you mean %q?" for a suggestion, or "".
func didYouMean(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", s)
}

// unknownStep reports id, named by step s at sp, as a step the plan does
// not declare: msg, then the closest declared id or how to fix it.
func (p *Pass) unknownStep(r *Rule, s *ast.Step, id string, sp ast.Span, msg string) {
	sug := ast.Suggest(id, p.stepIDs())
	fix := didYouMean(sug)
	if sug == "" {
		fix = "; name a step declared in this plan"
	}
	p.report(r, s, sp, sug, "%s%s", msg, fix)
}

// stepIDs returns the ids of the plan's steps, in plan order, without
// duplicates, for did-you-mean.
func (p *Pass) stepIDs() []string {
	if p.ids != nil {
		return p.ids
	}
	ids := []string{}
	for i, s := range p.Plan.Steps {
		if p.byID.first[i] == int32(i) {
			ids = append(ids, s.ID)
		}
	}
	p.ids = ids
	return ids
}

// stepName is how messages name a step: its id, or its index when it has
// none.
func stepName(s *ast.Step) string {
	if s.ID != "" {
		return fmt.Sprintf("step %q", s.ID)
	}
	return fmt.Sprintf("step %d", s.Index+1)
}

// looksLikeRef reports whether s contains something shaped like a reference
// ($ID.FIELD) without being one as a whole (semantics S6).
func containsRefShape(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		j := i + 1
		for j < len(s) && isIDByte(s[j]) {
			j++
		}
		if j == i+1 || j >= len(s) || s[j] != '.' {
			continue
		}
		if j+1 < len(s) && isFieldByte(s[j+1]) {
			return true
		}
	}
	return false
}

func isIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func isFieldByte(c byte) bool { return c != '-' && isIDByte(c) }

// quoteList formats names as "a", "b", "c".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
