// Package capsule is sub-capsules, both sides of a capsule step: the room
// of host that answers vm.Host's SpawnCapsule, at the end of planc's
// one-way flow (bytes → ast → check → ir → vm(host)). docs/capsules.md
// describes what it does from the outside.
//
//   - The roost (Roost) resolves a step's bare capsule name against the
//     spawning capsule's capabilities.spawn.allow and finds its manifest.
//   - The parent side (Launcher) starts each attempt of a capsule step as
//     a child `planc __capsule` in a leaf cgroup of the plan's scope, with
//     a lifeline and a status pipe, keeps its delegation directory
//     (objective, answer, standard error, completion.json) and writes the
//     delegation's trace lines; on a cancel it ends the child and closes
//     the delegation at plan_end (BeforeTrace).
//   - The child side (RunChild) is `planc __capsule`: a command
//     entrypoint runs in a process group of its own, a plan entrypoint
//     runs its plan through the runner host passes in; when the lifeline
//     ends because the parent is gone, WatchParent (inside the plan's run)
//     or the command's wait writes spawner_ended and winds the work down.
package capsule
