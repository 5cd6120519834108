package parser

// CodeDoc documents one of the parser's diagnostic codes, for the README's
// table and for SARIF rule descriptions.
type CodeDoc struct {
	Code    string
	Doc     string // one line: what the code reports
	Example string // one line of input that gets it
}

// Codes returns the document-level codes the parser reports (semantics S1,
// S5), in a fixed order.
func Codes() []CodeDoc {
	return []CodeDoc{
		{CodeJSONSyntax, "the text is not valid JSON (S1)", `{"id": "a", "steps": [],}`},
		{CodeInvalidUTF8, "the text is not valid UTF-8 (S1)", `{"id": "caf\xe9"}` + " (a Latin-1 byte)"},
		{CodeTrailingData, "something follows the plan's one JSON object (S1)", `{"id": "a", "steps": []} {}`},
		{CodeDuplicateKey, "an object has the same key twice, in the plan, a step or input (S1)", `{"id": "a", "id": "b", "steps": []}`},
		{CodeNotAnObject, "the document is not one JSON object (S1)", `[{"id": "a", "tool": "notes"}]`},
		{CodeTooLarge, "the plan text is over 16 MiB (S5)", "a 20 MiB plan"},
		{CodeTooDeep, "JSON nesting is deeper than 256 (S5)", `{"input": [[[[…300 levels…]]]]}`},
		{CodeTooManySteps, "the plan has more than 100,000 steps (S5)", "a plan of 100,001 steps"},
	}
}
