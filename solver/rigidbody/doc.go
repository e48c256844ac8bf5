// Package rigidbody is a thin cgo binding to the Open Dynamics Engine (ODE
// 0.16, Debian's libode-dev, double precision) for Gallop's rigid-body
// simulations: worlds, dynamic bodies with masses and compound shapes
// (spheres, boxes, capsules, cylinders), static geometry (the same shapes,
// planes, triangle meshes, height fields), and contacts with friction and
// restitution that may vary over a surface.
//
// # Stepping
//
// World.Step is one cgo call: collision detection (every body geom
// against every other and against the static geometry, in two simple
// spaces), contact joints made with the combined Surface parameters of the
// two geoms (see Surface), the integrator step (StepDirect: dWorldStep, a
// Dantzig LCP; StepQuick: dWorldQuickStep, projected Gauss-Seidel), and
// the at-rest bookkeeping: World.AllAtRest reports when every body has
// been slower than the thresholds of SetRestThresholds for a number of
// consecutive steps, so a simulation can stop early. Record a trajectory
// with World.AppendPoses after every step or every few steps.
//
// # Threads and determinism
//
// A World belongs to one goroutine at a time; different worlds may step
// at the same time on different goroutines. The same world built the same
// way and stepped the same number of times gives bitwise the same
// trajectory, in one process or another, whatever else runs at the same
// time (tested). Three pieces of ODE's process-wide state would break that
// and are dealt with in gallop_ode.c:
//
//   - dWorldQuickStep with more than 8 iterations shuffles constraint rows
//     with ODE's one global random generator. Each world keeps its own
//     generator state (World.SetSeed); the step installs it, steps and
//     saves it back under a process-wide lock.
//   - ODE's default threading implementation is one object shared by all
//     worlds and is not safe for concurrent steps; each world gets its own
//     self-threaded implementation.
//   - This build of ODE has no thread-local storage, so OPCODE's collider
//     cache for triangle meshes is global: collisions against triangle
//     meshes take a process-wide lock (temporal coherence is off, so the
//     cache carries no state from one query to the next).
//
// ODE's messages (such as "LCP internal error") are counted per world
// (World.Messages) instead of printed. ODE's debug checks are compiled
// in: invalid input would abort the process, so this package checks its
// arguments first and panics with a message (programming errors) or
// returns an error (bad data: meshes, height fields, surface fields).
//
// Gallop's worlds are +Y up; capsules and cylinders lie along their
// frame's z axis as in ODE (and as assets.CapsuleMesh and
// assets.CylinderMesh build them).
package rigidbody
