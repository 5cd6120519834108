// Package sessionfmt is the format of a session directory (docs/trace.md,
// docs/running.md, S24): the names of its files and folders (trace.jsonl,
// session.json, plans/, outputs/, reports/, locks/, delegations/), the
// trace's event names, the S20 cut mark, the output index's lines,
// session.json and a delegation's completion.json. The writer
// (host/session) and the reader (tracefile) both import it; it imports
// nothing of planc's but the JSON string writer.
package sessionfmt
