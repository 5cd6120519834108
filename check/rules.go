package check

import (
	"fmt"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/parser"
)

// rules returns every rule in the order they run: schema rules first, then
// the refusals of docs/plans.md ("What is refused before anything runs"),
// then the warnings. The order only matters for rules
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
		ruleComposeValues,
		ruleShellNotAllowed,
		ruleBinaryNotFound,
		ruleDependencyCycle,
		ruleUnreferenceableID,
		ruleReferenceLikeText,
		ruleReferenceInKey,
		ruleReferenceInShell,
		ruleReferenceNotDependency,
		ruleNumericComparison,
		ruleStatusLiteral,
		ruleStatusOrdering,
		ruleNeverRuns,
		ruleShellInputIgnored,
		ruleShellOperator,
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
func (p *Pass) report(r *Rule, s *ast.Step, sp ast.Range, suggestion, format string, args ...any) {
	d := Diagnostic{Span: p.Plan.Lines.Span(sp), Severity: r.Severity, Code: r.Code, Message: fmt.Sprintf(format, args...), Suggestion: suggestion}
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

// meant returns " (did you mean %q?)" for a suggestion, or "": for a
// message whose fix comes after the suggestion.
func meant(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", s)
}

// unknownStep reports id, named by step s at sp, as a step the plan does
// not declare: msg, then the closest declared id or how to fix it.
func (p *Pass) unknownStep(r *Rule, s *ast.Step, id string, sp ast.Range, msg string) {
	var sug string
	if s != nil {
		// Not the step itself: depending on it, or reading it, is refused too.
		sug = p.stepSuggester().SuggestExcept(id, s.ID)
	} else {
		sug = p.stepSuggester().Suggest(id)
	}
	fix := didYouMean(sug)
	if sug == "" {
		fix = "; name a step declared in this plan"
	}
	p.report(r, s, sp, sug, "%s%s", msg, fix)
}

// stepSuggester returns did-you-mean over the ids of the plan's steps, in
// plan order, without duplicates. It is one for the whole plan, so its
// budget bounds the work for every unknown step name the plan holds: the
// first ones get the nearest id, the rest, past the budget, none.
func (p *Pass) stepSuggester() *ast.Suggester {
	if p.suggest != nil {
		return p.suggest
	}
	ids := []string{}
	for i, s := range p.Plan.Steps {
		if p.byID.first[i] == int32(i) {
			ids = append(ids, s.ID)
		}
	}
	p.suggest = ast.NewSuggester(ids)
	return p.suggest
}

// stepName is how messages name a step: its id, or its index when it has
// none.
func stepName(s *ast.Step) string {
	if s.ID != "" {
		return fmt.Sprintf("step %q", s.ID)
	}
	return fmt.Sprintf("step %d", s.Index+1)
}

// containsRefShape reports whether s contains something shaped like a
// reference ($ID.FIELD, of the bytes parser.IsRefIDByte and
// parser.IsRefFieldByte allow) anywhere in it (semantics S6); a string
// that is a reference as a whole is the callers' to rule out.
func containsRefShape(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		j := i + 1
		for j < len(s) && parser.IsRefIDByte(s[j]) {
			j++
		}
		if j == i+1 || j >= len(s) || s[j] != '.' {
			continue
		}
		if j+1 < len(s) && parser.IsRefFieldByte(s[j+1]) {
			return true
		}
	}
	return false
}
