package hostbridge

import (
	"errors"

	"hostbridge/internal/conformhook"
)

// The conformance runner (cmd/conform, CONFORMANCE.md) scores a host
// through the spec functions, and the canonical JSON vectors through the
// canonicaliser they pin, options and all. The Go adapter scores this
// package: it reaches the canonicaliser, which is not exported, through
// internal/conformhook.

func init() { conformhook.Canonical = canonicalReport }

// hookProblems names the problem kinds as the vectors do.
var hookProblems = [...]string{problemNone: "none", problemDeep: "deep", problemMarker: "marker", problemInf: "inf"}

// canonicalReport runs canonical with the vectors' options and reports
// what it found.
func canonicalReport(text []byte, o conformhook.Options) conformhook.Report {
	out, info, err := canonical(nil, text, &canonOptions{syntaxDepthLimit: o.MaxDepth,
		problemDepthLimit: o.DeepOver, markers: o.Markers, infToNull: o.InfToNull})
	if err != nil {
		r := conformhook.Report{Syntax: true, Reason: err.Error()}
		var se *syntaxError
		if errors.As(err, &se) {
			r.Reason, r.Off = se.reason, se.off
		}
		return r
	}
	r := conformhook.Report{Depth: info.depth, Problem: hookProblems[info.problem.kind], ProblemOff: info.problem.off}
	if info.problem.kind == problemNone {
		r.Canonical = out
	}
	return r
}
