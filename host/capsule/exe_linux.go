package capsule

// selfExecutable is the planc a sub-capsule runs: the file this process
// runs, by /proc/self/exe, whatever its path holds now. A step may
// replace the file at planc's path (rename another over it); a child
// started by that path would be the step's program, run as planc is,
// outside every step's containment.
func selfExecutable() (string, error) { return "/proc/self/exe", nil }
