// Package tools is the tools a plan's tool steps call: the runtime's
// built-in tools (Builtins: repo-files, notes, read-file, write-file) and
// the tools of the manifest's MCP servers (Servers, started once per run
// with StartServers; ListMCPToolInputs for `planc check --capsule`). It is the
// room of host that answers vm.Host's CallTool, at the end of planc's
// one-way flow (bytes → ast → check → ir → vm(host)).
//
// An Inventory joins the two for one run: Call dispatches a tool step to
// the MCP server that offers the tool or to the built-in tools, and Info
// tells host/protect's read_only check what it knows of a tool.
package tools
